'use strict';

// The package as installed from the packed tarballs (the root package and this machine's platform package)
// under every Node line, Bun and Deno (scripts/lib/runtimes.js): lib/probe.cjs through require() and an ESM
// probe through import must find this machine's best level in the addon (a silent fallback fails) and
// pass their checks, and the threat model around load must hold. Where addons are off (Node's
// --no-addons, Deno without --allow-ffi) the WebAssembly tier must be what loads. Prints one line per run
// (logs in target/test-runtimes/); exits 1 on any failure.

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { root, packRelease, tempDir, userProject } = require('./lib/packages');
const { RUNTIMES, npmRuntime } = require('./lib/runtimes');
const { cleanEnv, runLogged, reportsOf, tail, copyProbe } = require('./lib/child');

const NAME = 'bufferutil-simd';
const LOGS = path.join(root, 'target', 'test-runtimes');
// Deno reads nothing, loads no addon and sees no environment without these (docs/platforms.md).
const DENO = ['run', '--allow-ffi', '--allow-read', '--allow-env'];

const PROBES = {
  // ESM first, in a process of its own: the named and the default exports.
  'probe.mjs': `
import { createRequire } from 'node:module';
import bufferUtil, { mask, unmask, backend } from '${NAME}';
const failures = createRequire(import.meta.url)('./conformance.cjs')([['named exports', { mask, unmask }], ['default export', bufferUtil]]);
if (backend !== bufferUtil.backend || mask !== bufferUtil.mask || unmask !== bufferUtil.unmask) failures.push('named and default exports differ');
console.log(JSON.stringify({ backend, failures }));
`,
  // Deno without permissions may not read a file by require(): this one only imports.
  'probe-bare.mjs': `
import { mask, backend } from '${NAME}';
const source = Uint8Array.from({ length: 200 }, (_, i) => i * 7);
const out = new Uint8Array(200);
mask(source, [1, 2, 3, 4], out, 0, 200);
console.log(JSON.stringify({ backend, failures: out.every((byte, i) => byte === (source[i] ^ ((i % 4) + 1))) ? [] : ['wrong bytes'] }));
`,
  // The threat model around load (__test__/hostile-load.test.js has the same for Node), each a fresh process.
  // Setters on Object.prototype while the package loads (not `code`: require() itself sets it on a lookup that misses).
  'hostile-setters.cjs': `
let ran = 0;
const names = ['interface', 'levels', 'level', 'mask', 'maskBlock', 'unmask', 'unmaskBlock', 'useBlock', 'backend'];
for (const name of names) Object.defineProperty(Object.prototype, name, { configurable: true, set(value) { ran++; Object.defineProperty(this, name, { value, writable: true, configurable: true }); } });
const bufferUtil = require('${NAME}');
for (const name of names) delete Object.prototype[name];
const source = Uint8Array.from({ length: 300 }, (_, i) => i), output = new Uint8Array(306);
bufferUtil.mask(source, new Uint8Array([1, 2, 3, 4]), output, 6, 300);
const failures = [];
if (ran) failures.push(ran + ' setters ran while the package loaded');
if (!output.subarray(6).every((b, i) => b === (source[i] ^ ((i & 3) + 1)))) failures.push('wrong bytes');
console.log(JSON.stringify({ backend: bufferUtil.backend, failures }));
`,
  // Length accessors patched before load: the default tier writes nothing outside the views.
  'hostile-accessors.cjs': `
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const realDescriptor = Object.getOwnPropertyDescriptor;
Object.getOwnPropertyDescriptor = function (object, name) {
  const descriptor = realDescriptor(object, name);
  if (object === TypedArrayPrototype && (name === 'length' || name === 'byteLength') && descriptor.get) {
    const get = descriptor.get;
    return { ...descriptor, get() { return get.call(this) + 4096; } };
  }
  return descriptor;
};
const bufferUtil = require('${NAME}');
Object.getOwnPropertyDescriptor = realDescriptor;
const failures = [];
for (const size of [16, 100, 300]) {
  const memory = Uint8Array.from({ length: 8192 }, (_, i) => (i * 7) & 255);
  const view = new Uint8Array(memory.buffer, 3000, size);
  try { bufferUtil.unmask(view, new Uint8Array([1, 2, 3, 4])); } catch {}
  try { bufferUtil.mask(view, [1, 2, 3, 4], view, 0, size); } catch {}
  for (let i = 0; i < 8192; i++) if ((i < 3000 || i >= 3000 + size) && memory[i] !== ((i * 7) & 255)) { failures.push('wrote outside a ' + size + ' B view'); break; }
}
console.log(JSON.stringify({ backend: bufferUtil.backend, failures }));
`,
  // Globals patched after load change no error and run no setter.
  'hostile-after.cjs': `
const bufferUtil = require('${NAME}');
const key = new Uint8Array([1, 2, 3, 4]);
const message = () => { try { bufferUtil.mask(new Uint8Array(10), key, new Uint8Array(20), 0, 11); } catch (error) { return error.message + ' ' + Object.getOwnPropertyDescriptor(error, 'code')?.value; } };
const before = message();
const realIterator = Array.prototype[Symbol.iterator];
Array.prototype[Symbol.iterator] = function* () { yield 'a lie'; yield 0; };
let setterRan = 0;
Object.defineProperty(Error.prototype, 'code', { configurable: true, set() { setterRan++; } });
const after = message();
Array.prototype[Symbol.iterator] = realIterator;
delete Error.prototype.code;
const failures = [];
if (after !== before) failures.push('an error changed: ' + after);
if (setterRan) failures.push('a code setter ran');
console.log(JSON.stringify({ backend: bufferUtil.backend, failures }));
`,
  // Zero-length and refused calls write no byte, watched by a worker on a SharedArrayBuffer that keeps
  // storing values and reading them back (__test__/integrity.test.js has the same for every tier).
  'hostile-range.cjs': `
const { Worker } = require('node:worker_threads');
const bufferUtil = require('${NAME}');
const WATCH = \`
const { workerData: { memory, control }, parentPort } = require('node:worker_threads');
const bytes = new Uint8Array(memory), flags = new Int32Array(control);
let round = 0, changed = 0;
Atomics.store(flags, 1, 1);
while (Atomics.load(flags, 0) === 0) {
  round = (round + 1) & 255;
  for (let i = 0; i < bytes.length; i++) Atomics.store(bytes, i, round);
  for (let i = 0; i < bytes.length; i++) if (Atomics.load(bytes, i) !== round) changed++;
}
parentPort.postMessage(changed);
\`;
const memory = new SharedArrayBuffer(256), control = new SharedArrayBuffer(8), flags = new Int32Array(control);
const worker = new Worker(WATCH, { eval: true, workerData: { memory, control } });
const changed = new Promise((resolve) => worker.on('message', resolve));
const output = new Uint8Array(memory, 64, 128), empty = new Uint8Array(memory, 72, 0), source = new Uint8Array(16);
const key = new Uint8Array([1, 2, 3, 4]);
const attempt = (call) => { try { call(); } catch {} };
(async () => {
  while (Atomics.load(flags, 1) === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  for (const end = Date.now() + 500; Date.now() < end; ) {
    for (const offset of [0, 1, 6, 127]) bufferUtil.mask(source, key, output, offset, 0);
    bufferUtil.unmask(empty, key);
    attempt(() => bufferUtil.mask(source, key, output, 0, 17));
    attempt(() => bufferUtil.mask(source, key, output, 124, 8));
    attempt(() => bufferUtil.mask(source, key.subarray(0, 3), output, 0, 4));
  }
  Atomics.store(flags, 0, 1);
  const count = await changed;
  await worker.terminate();
  console.log(JSON.stringify({ backend: bufferUtil.backend, failures: count ? [count + ' watched bytes changed'] : [] }));
})();
`,
};
const HOSTILE = Object.keys(PROBES).filter((file) => file.startsWith('hostile-'));

function main() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.log(`skipped: the runtimes from npm used here are linux-x64 builds; this is ${process.platform}-${process.arch}`);
    return;
  }
  const expected = require('../lib/native').backend;
  const bins = RUNTIMES.map(npmRuntime);
  const work = tempDir('bufferutil-simd-runtimes-');
  try {
    const release = packRelease(work);
    const project = userProject(work, 'runtimes');
    // The root package as packed (no optionalDependencies to fetch) and this machine's platform package.
    const install = ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--offline'];
    execFileSync('npm', [...install, release.plain, release.platforms[release.hostPlatform]], { cwd: project, stdio: 'ignore' });
    copyProbe(project);
    for (const [file, text] of Object.entries(PROBES)) fs.writeFileSync(path.join(project, file), text);

    /** One probe's report: its backend, its failures and what it printed. */
    const probe = (i, args, file, env = {}) => {
      const log = path.join(LOGS, `${RUNTIMES[i].dir}${args.join('')}-${file}.log`);
      const run = runLogged(bins[i], [...args, file], { cwd: project, log, timeout: 120_000, env: cleanEnv(env) });
      const report = { backend: '?', failures: [], ...reportsOf(run.text)[0], text: run.text };
      if (run.status !== 0) report.failures.push(`${file} exited ${run.status}: ${tail(run.text, 2)}`);
      return report;
    };
    const rows = [];
    /** A row of the table: `cjs` (if run) and `esm` must be on tier `want`, and pass. */
    const row = (name, version, want, cjs, esm, extra = []) => {
      const failures = [...(cjs?.failures ?? []), ...esm.failures.map((failure) => `esm: ${failure}`), ...extra];
      const native = want === 'wasm' ? undefined : want;
      if ((cjs && (cjs.backend !== want || cjs.native !== native)) || esm.backend !== want) {
        failures.unshift(`expected ${want}, got ${cjs?.backend ?? '-'} (addon: ${cjs?.native}) / ${esm.backend}`);
      }
      rows.push({ name, version, cjs: cjs?.backend ?? '-', esm: esm.backend, failures });
    };
    RUNTIMES.forEach((runtime, i) => {
      const args = runtime.name === 'deno' ? DENO : [];
      const cjs = probe(i, args, 'probe.cjs');
      const version = cjs.runtime?.split(' ')[1] ?? '?';
      const hostile = HOSTILE.flatMap((file) => probe(i, args, file).failures.map((failure) => `${file}: ${failure}`));
      row(runtime.name, version, expected, cjs, probe(i, args, 'probe.mjs'), hostile);
      if (runtime.name === 'deno') {
        row('deno, no flags', version, 'wasm', undefined, probe(i, ['run'], 'probe-bare.mjs'));
        // Allowed to read but not to load an addon: NODE_DEBUG says why.
        const noFfi = probe(i, ['run', '--allow-read', '--allow-env'], 'probe-bare.mjs', { NODE_DEBUG: NAME });
        const said =
          /BUFFERUTIL-SIMD \d+: no addon: [\s\S]*ffi/.test(noFfi.text) && /BUFFERUTIL-SIMD \d+: tier wasm/.test(noFfi.text);
        row(
          'deno, no ffi',
          version,
          'wasm',
          undefined,
          noFfi,
          said ? [] : [`NODE_DEBUG did not say why: ${noFfi.text.slice(0, 300)}`]
        );
      } else if (runtime.name.startsWith('node')) {
        row(
          `${runtime.name}, --no-addons`,
          version,
          'wasm',
          probe(i, ['--no-addons'], 'probe.cjs'),
          probe(i, ['--no-addons'], 'probe-bare.mjs')
        );
      }
    });

    for (const { name, version, cjs, esm, failures } of rows) {
      console.log(
        `${name.padEnd(20)} ${version.padEnd(9)} cjs=${cjs.padEnd(7)} esm=${esm.padEnd(7)} ${failures.length ? 'FAIL' : 'pass'}`
      );
      for (const failure of failures.slice(0, 20)) console.log(`    ${failure}`);
    }
    const failed = rows.filter((row) => row.failures.length).length;
    console.log(`${rows.length - failed} passed, ${failed} failed`);
    process.exitCode = failed ? 1 : 0;
  } finally {
    if (!process.env.KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
  }
}

main();
