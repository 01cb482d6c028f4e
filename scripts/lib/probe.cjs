'use strict';

// Run in the runtime under test, in a project where the package is installed, beside conformance.cjs
// (scripts/test-runtimes.js, scripts/test-cross.js). Checks the package, its addon and its WebAssembly tier,
// the tier's thresholds and the ESM entry, and prints one JSON report. With PROBE_LEVELS=a,b it then runs
// itself once per level (BUFFERUTIL_SIMD_LEVEL) and once with --no-addons, one report each (`wanted`).

const path = require('node:path');
const { spawnSync } = require('node:child_process');
const conformance = require('./conformance.cjs');

const NAME = 'bufferutil-simd';
const lib = (file) => require(path.join(path.dirname(require.resolve(NAME)), 'lib', file));
const runtime =
  typeof Bun !== 'undefined'
    ? `bun ${Bun.version}`
    : typeof Deno !== 'undefined'
      ? `deno ${Deno.version.deno}`
      : `node ${process.version} ${process.platform}-${process.arch}`;

async function checks() {
  const bufferUtil = require(NAME);
  const report = { runtime, backend: bufferUtil.backend, failures: [] };
  const apis = [['module', bufferUtil]];
  // Each tier at every size, and the WebAssembly one as the package has it.
  if (bufferUtil.backend !== 'wasm' && bufferUtil.backend !== 'js') {
    const native = lib('native.js');
    Object.assign(report, { native: native.backend, addon: native.file });
    apis.push(['addon', native.tier()]);
  }
  const wasm = lib('wasm.js');
  apis.push(['wasm', wasm.tier(lib('thresholds.js').WASM_FROM)], ['wasm, every size', wasm.tier()]);
  report.failures.push(...conformance(apis));
  if (wasm.backend !== 'wasm') report.failures.push(`wasm.js reports ${wasm.backend}`);
  const { backend } = bufferUtil;
  const esm = await import(NAME);
  if (esm.backend !== backend || esm.default.backend !== backend) report.failures.push(`import: backend ${esm.backend}`);
  return report;
}

/** This probe in a child process (`args` before it, `env` added), its report as `wanted`. */
function child(wanted, args, env) {
  const run = spawnSync(process.execPath, [...args, __filename], {
    env: { ...process.env, PROBE_LEVELS: '', ...env },
    encoding: 'utf8',
  });
  const report = run.stdout?.split('\n').find((line) => line.startsWith('{'));
  if (run.status === 0 && report) return { ...JSON.parse(report), wanted };
  const stderr = String(run.stderr ?? run.error)
    .trim()
    .split('\n')
    .slice(0, 3)
    .join(' | ');
  return { wanted, failures: [`${wanted}: exit ${run.status ?? run.signal}: ${stderr}`] };
}

async function main() {
  console.log(JSON.stringify(await checks()));
  for (const level of process.env.PROBE_LEVELS?.split(',').filter(Boolean) ?? []) {
    console.log(JSON.stringify(child(level, [], { BUFFERUTIL_SIMD_LEVEL: level })));
  }
  if (process.env.PROBE_LEVELS) console.log(JSON.stringify(child('wasm', ['--no-addons'], {})));
}

main().catch((error) => {
  console.log(JSON.stringify({ runtime, failures: [`probe threw: ${error?.stack ?? error}`] }));
  process.exitCode = 1;
});
