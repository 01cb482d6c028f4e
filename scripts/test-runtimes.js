'use strict';

// `npm run test:runtimes [-- 18 26 bun deno] [--after-npm-test]`: the suite under every Node line, Bun and Deno (from
// npm, scripts/lib/runtimes.js), then the package installed from its tarballs and imported by name: at this machine's
// best level, or on WebAssembly where addons are off (--no-addons; Deno without --allow-ffi, named by NODE_DEBUG).
// --after-npm-test skips the suite under the Node `npm test` ran. Logs: target/test-runtimes/.

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { root, rootManifest, packRelease, tempDir, userProject } = require('./lib/packages');
const { cleanEnv, runLogged, tail, testSummary } = require('./lib/child');
const { RUNTIMES, npmRuntime } = require('./lib/runtimes');

const { name: NAME } = rootManifest;
const LOGS = path.join(root, 'target', 'test-runtimes');
const SUITE = fs.readdirSync(path.join(root, '__test__')).filter((file) => file.endsWith('.test.js'));
const without = (...left) => SUITE.filter((f) => !left.includes(f.split('.')[0])).map((f) => path.join(root, '__test__', f));

// The suite, per runtime. Bun and Deno leave out the files that drive Node's own flags (--no-addons, `-e`
// with import()) or internals (Module._extensions).
const SUITES = {
  node: () => [path.join(__dirname, 'test-js.js'), '--test-reporter=tap'],
  bun: () => ['test', '--timeout=120000', ...without('cli', 'thresholds')],
  deno: () => ['test', '-A', '--no-check', '--unstable-detect-cjs', ...without('cli', 'levels', 'loader')],
};

// The package imported by name: [row, arguments, the tier it must run at (default: the best), env, NODE_DEBUG's reason].
const IMPORTS = {
  node: [
    ['', []],
    [', --no-addons', ['--no-addons'], 'wasm'],
  ],
  bun: [['', []]],
  deno: [
    // Deno reads nothing, loads no addon and sees no environment without these flags (docs/platforms.md).
    ['', ['run', '--allow-ffi', '--allow-read', '--allow-env']],
    [', no flags', ['run'], 'wasm'],
    [', no ffi', ['run', '--allow-read', '--allow-env'], 'wasm', { NODE_DEBUG: NAME }, /no addon: [^\n]*--allow-ffi/],
  ],
};
// What an import resolves to; the bytes are the suite's to check.
const ESM = `
import bufferUtil, { mask, unmask, backend } from '${NAME}';
const same = mask === bufferUtil.mask && unmask === bufferUtil.unmask && backend === bufferUtil.backend;
console.log(JSON.stringify({ backend, failures: same ? [] : ['named and default exports differ'] }));
`;

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.log(`skipped: the runtimes from npm used here are linux-x64 builds; this is ${process.platform}-${process.arch}`);
  process.exit(0);
}
const wanted = process.argv.slice(2).filter((arg) => arg !== '--after-npm-test');
const again = !process.argv.includes('--after-npm-test');
const runtimes = RUNTIMES.filter(({ name }) => !wanted.length || wanted.some((word) => [word, `node ${word}`].includes(name)));
if (runtimes.length < wanted.length) throw new Error(`pick from: ${RUNTIMES.map(({ name }) => name).join(', ')}`);
const best = require('../lib/tiers/native').backend;
const work = tempDir('bufferutil-simd-runtimes-');
let failed = 0;
try {
  const release = packRelease(work);
  const project = userProject(work, 'runtimes');
  // The root package as packed (no optionalDependencies to fetch) and this machine's platform package.
  const install = ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--offline'];
  execFileSync('npm', [...install, release.plain, release.platforms[release.hostPlatform]], { cwd: project, stdio: 'ignore' });
  fs.writeFileSync(path.join(project, 'esm.mjs'), ESM);

  for (const runtime of runtimes) {
    const bin = npmRuntime(runtime);
    const kind = runtime.name.split(' ')[0];
    const version = /\d+\.\d+\.\d+/.exec(execFileSync(bin, ['--version'], { encoding: 'utf8' }))[0];
    const label = `${kind} ${version}`;
    const [log, started] = [path.join(LOGS, `${runtime.dir}.log`), Date.now()];
    if (!again && kind === 'node' && version === process.versions.node) console.log(`${label}: the suite: ran in npm test`);
    else {
      const suite = runLogged(bin, SUITES[kind](), { cwd: root, log, env: cleanEnv({ NO_COLOR: '1' }) });
      if (!testSummary(`${label}: the suite`, suite, log, started)) failed++;
    }

    for (const [row, args, tier = best, env = {}, reason] of IMPORTS[kind]) {
      const log = path.join(LOGS, `${runtime.dir}${args.join('')}-import.log`);
      const run = runLogged(bin, [...args, 'esm.mjs'], { cwd: project, log, timeout: 120_000, env: cleanEnv(env) });
      const { backend, failures } = JSON.parse(run.text.split('\n').find((line) => line.startsWith('{')) ?? '{"failures":[]}');
      if (run.status !== 0) failures.push(`exit ${run.status}: ${tail(run.text, 2)}`);
      if (backend !== tier) failures.push(`ran at ${backend}, not ${tier}`);
      if (reason && !reason.test(run.text)) failures.push(`NODE_DEBUG did not say why: ${run.text.slice(0, 300)}`);
      console.log(`${label}${row}: import '${NAME}' runs at ${backend}: ${failures.length ? 'FAIL' : 'pass'}`);
      for (const failure of failures.slice(0, 20)) console.log(`    ${failure}`);
      if (failures.length) failed++;
    }
  }
} finally {
  if (!process.env.KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
}
console.log(`test:runtimes: ${runtimes.length} runtimes, ${failed ? `${failed} FAILED` : 'all passed'}`);
process.exitCode = failed ? 1 : 0;
