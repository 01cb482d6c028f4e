'use strict';

// Runs a conformance subset of bufferutil-simd under Node 18–26, Bun and Deno, as installed from the packed
// tarballs (root package + this machine's platform package), and requires the native addon in each: a
// silent fallback to JavaScript counts as a failure. The runtimes come from the npm registry and are kept
// in the runtime cache (scripts/lib/runtimes.js).
//
// Prints one line per runtime: name, version, backend (CommonJS / ESM), pass or FAIL; exits 1 on any failure.
// The WebAssembly tier runs the same checks in every runtime (as shipped and with every size through the
// module), and where addons are off (Node's --no-addons, Deno without flags) it must be what loads.

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { packRelease, tempDir, userProject, rootManifest } = require('./lib/packages');
const { RUNTIMES: ALL_RUNTIMES, npmRuntime } = require('./lib/runtimes');

// Deno reads nothing, loads no addon and sees no environment without these; see docs/platforms.md.
const DENO_FLAGS = ['run', '--allow-ffi', '--allow-read', '--allow-env'];
const RUNTIMES = ALL_RUNTIMES.map((runtime) => ({ ...runtime, args: runtime.name === 'deno' ? DENO_FLAGS : [] }));

/**
 * The checks, run inside each runtime against each `[label, { mask, unmask }]` given (the public module, the
 * raw addon). Self-contained: its source is written into the test project. Returns a list of failures.
 */
function conformance(apis) {
  const failures = [];
  const key = [0x81, 0x3c, 0xf5, 0x0e];
  const random = (n) => Uint8Array.from({ length: n }, () => Math.floor(Math.random() * 256));
  const reference = (bytes) => bytes.map((byte, i) => byte ^ key[i & 3]);
  const bytesOf = (view) => new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const same = (a, b) => a.length === b.length && a.every((byte, i) => byte === b[i]);
  const check = (what, ok) => ok || failures.push(what);
  const throws = (what, Kind, code, call) => {
    try {
      call();
      failures.push(`${what}: did not throw`);
    } catch (error) {
      if (!(error instanceof Kind) || error.code !== code) {
        failures.push(`${what}: threw ${error?.name} ${error?.code}: ${error?.message}`);
      }
    }
  };

  for (const [label, api] of apis) {
    // Sizes below and above index.js's switch to the addon (64-208 B by runtime, lib/thresholds.js), and
    // around the SIMD widths.
    for (const n of [0, 1, 3, 15, 16, 17, 63, 64, 65, 175, 176, 200, 207, 208, 4096 + 7]) {
      const source = random(n);
      const expected = reference(source);

      const inPlace = source.slice();
      api.mask(inPlace, key, inPlace, 0, n);
      check(`${label} mask in place, ${n} B`, same(inPlace, expected));
      api.unmask(inPlace, new Uint8Array(key));
      check(`${label} unmask in place, ${n} B`, same(inPlace, source));

      const framed = new Uint8Array(n + 10).fill(0xaa);
      api.mask(source, new Uint8Array(key), framed, 6, n);
      check(`${label} mask to offset 6, ${n} B`, same(framed.subarray(6, 6 + n), expected));
      check(
        `${label} mask to offset 6 wrote outside, ${n} B`,
        framed.subarray(0, 6).every((b) => b === 0xaa) && framed.subarray(6 + n).every((b) => b === 0xaa)
      );
    }

    // Views that are not plain Uint8Arrays, at offsets that are not multiples of 4 or 8.
    const n = 200;
    const arena = new ArrayBuffer(1024);
    const views = [
      ['Uint8Array at +1', () => new Uint8Array(arena, 1, n)],
      ['Int16Array at +2', () => new Int16Array(arena, 2, n / 2)],
      ['Float64Array at +8', () => new Float64Array(arena, 8, n / 8)],
      ['DataView at +3', () => new DataView(arena, 3, n)],
    ];
    for (const [name, make] of views) {
      const view = make();
      const bytes = bytesOf(view);
      bytes.set(random(n));
      const source = bytes.slice();
      api.unmask(view, key);
      check(`${label} unmask ${name}`, same(bytes, reference(source)));
      api.mask(view, new DataView(new Uint8Array(key).buffer), view, 0, n);
      check(`${label} mask ${name} in place, DataView key`, same(bytes, source));
      const out = new DataView(new ArrayBuffer(n + 7), 5, n + 2);
      api.mask(view, new Uint16Array(new Uint8Array(key).buffer), out, 1, n);
      check(`${label} mask ${name} into a DataView at 1`, same(new Uint8Array(out.buffer, 6, n), reference(source)));
    }

    // Errors: the same types and codes on every runtime, nothing written.
    const target = new Uint8Array(100).fill(7);
    throws(`${label} mask of a string`, TypeError, 'ERR_INVALID_ARG_TYPE', () => api.mask('x'.repeat(100), key, target, 0, 100));
    // Bun's napi_get_buffer_info once took a bare ArrayBuffer; Node's refuses it.
    throws(`${label} unmask of an ArrayBuffer`, TypeError, 'ERR_INVALID_ARG_TYPE', () => api.unmask(new ArrayBuffer(100), key));
    throws(`${label} unmask of an object`, TypeError, 'ERR_INVALID_ARG_TYPE', () => api.unmask({ length: 100 }, key));
    throws(`${label} 3-byte key`, TypeError, 'ERR_INVALID_ARG_TYPE', () => api.unmask(target, new Uint8Array(3)));
    throws(`${label} offset past the end`, RangeError, 'ERR_OUT_OF_RANGE', () => api.mask(random(100), key, target, 10, 100));
    throws(`${label} key byte 256`, RangeError, 'ERR_OUT_OF_RANGE', () => api.unmask(target, [1, 2, 3, 256]));
    check(
      `${label} wrote after throwing`,
      target.every((b) => b === 7)
    );
  }
  return failures;
}

// Deno without permissions may not read files by require(): this probe only imports.
const PROBE_BARE = `
import { mask, backend } from '${rootManifest.name}';
const source = Uint8Array.from({ length: 200 }, (_, i) => i * 7);
const out = new Uint8Array(200);
mask(source, [1, 2, 3, 4], out, 0, 200);
const failures = out.every((byte, i) => byte === (source[i] ^ (i % 4) + 1)) ? [] : ['wrong bytes'];
console.log(JSON.stringify({ backend }));
console.log(JSON.stringify({ failures }));
`;

// The same through require(), for Node with --no-addons.
const PROBE_BARE_CJS = PROBE_BARE.replace(
  `import { mask, backend } from '${rootManifest.name}';`,
  `const { mask, backend } = require('${rootManifest.name}');`
);

// The probe each runtime runs, CommonJS (the way ws loads bufferutil) then ESM.
const PROBE_CJS = `
const bufferUtil = require('${rootManifest.name}');
const native = require(require('path').join(require('path').dirname(require.resolve('${rootManifest.name}')), 'lib', 'native.js'));
const wasm = require(require('path').join(require('path').dirname(require.resolve('${rootManifest.name}')), 'lib', 'wasm.js'));
const runtime = typeof Bun !== 'undefined' ? 'bun ' + Bun.version : typeof Deno !== 'undefined' ? 'deno ' + Deno.version.deno : 'node ' + process.version;
// First what loaded, so that a crash in the checks still reports it.
console.log(JSON.stringify({ runtime, backend: bufferUtil.backend }));
const wasmEverySize = wasm.withOptions({ maskFrom: 0, unmaskFrom: 0 });
const failures = require('./conformance.cjs')([['module', bufferUtil], ['addon', native], ['wasm', wasm], ['wasm, every size', wasmEverySize]]);
if (wasm.backend !== 'wasm') failures.push('wasm.js reports ' + wasm.backend);
// backendFrom names this runtime's switch from the JavaScript loop (Bun's differs from Node's).
const { NATIVE_FROM, WASM_FROM } = require(require('path').join(require('path').dirname(require.resolve('${rootManifest.name}')), 'lib', 'thresholds.js'));
const switchAt = bufferUtil.backend === 'wasm' ? WASM_FROM : NATIVE_FROM;
const from = bufferUtil.backendFrom;
if (bufferUtil.backend !== 'js' && (from.mask[bufferUtil.backend] !== switchAt.mask || from.unmask[bufferUtil.backend] !== switchAt.unmask || from.mask.js !== 0)) {
  failures.push('backendFrom ' + JSON.stringify(from) + ' differs from this runtime: ' + JSON.stringify(switchAt));
}
console.log(JSON.stringify({ failures }));
`;
const PROBE_ESM = `
import { createRequire } from 'node:module';
import bufferUtil, { mask, unmask, backend, backendFrom } from '${rootManifest.name}';
const require = createRequire(import.meta.url);
console.log(JSON.stringify({ backend }));
const failures = require('./conformance.cjs')([['named exports', { mask, unmask }], ['default export', bufferUtil]]);
if (backend !== bufferUtil.backend || backendFrom !== bufferUtil.backendFrom) failures.push('named and default exports differ');
console.log(JSON.stringify({ failures }));
`;

// The threat model around load (__test__/hostile-load.test.js runs the same under every Node line), each a
// fresh process: setters on Object.prototype while the package loads, accessors patched before load on
// the default tier, and globals patched after load.
const HOSTILE = {
  'hostile-setters.cjs': `
let ran = 0;
// Not \`code\`: the runtime's own require() assigns it to the errors of the addon lookups that miss.
const names = ['bind', 'interface', 'mask', 'maskBlock', 'unmask', 'unmaskBlock', 'useBlock', 'kernelLevel', 'backend'];
for (const name of names) Object.defineProperty(Object.prototype, name, { configurable: true, set(value) { ran++; Object.defineProperty(this, name, { value, writable: true, configurable: true }); } });
const bufferUtil = require('${rootManifest.name}');
for (const name of names) delete Object.prototype[name];
const source = Uint8Array.from({ length: 300 }, (_, i) => i), output = new Uint8Array(306);
bufferUtil.mask(source, new Uint8Array([1, 2, 3, 4]), output, 6, 300);
const failures = [];
if (ran) failures.push(ran + ' setters ran while the package loaded');
if (!output.subarray(6).every((b, i) => b === (source[i] ^ ((i & 3) + 1)))) failures.push('wrong bytes');
console.log(JSON.stringify({ backend: bufferUtil.backend, failures }));
`,
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
const bufferUtil = require('${rootManifest.name}');
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
  'hostile-after.cjs': `
const bufferUtil = require('${rootManifest.name}');
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
};

function probe(bin, args, project, file, extraEnv = {}) {
  const env = { ...process.env, ...extraEnv };
  delete env.BUFFERUTIL_SIMD_LEVEL;
  delete env.NODE_OPTIONS;
  const run = spawnSync(bin, [...args, file], {
    cwd: project,
    env,
    encoding: 'utf8',
    timeout: 120_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const report = { backend: '?', failures: [], stderr: run.stderr ?? '' };
  for (const line of (run.stdout ?? '').split('\n')) if (line.startsWith('{')) Object.assign(report, JSON.parse(line));
  if (run.status !== 0 || run.signal) {
    // The first line of stderr names an abort's assertion; the rest is a native stack.
    report.failures.push(
      `${file} exited ${run.signal ?? run.status}: ${(run.stderr || String(run.error)).trim().split('\n').slice(0, 2).join(' | ')}`
    );
  }
  return report;
}

function main() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.log(`skipped: the runtimes from npm used here are linux-x64 builds; this is ${process.platform}-${process.arch}`);
    return;
  }
  const bins = RUNTIMES.map(npmRuntime);

  const work = tempDir('bufferutil-simd-runtimes-');
  try {
    const release = packRelease(work);
    const project = userProject(work, 'runtimes');
    // The root package as packed (no optionalDependencies to fetch) plus this machine's platform package:
    // what npm installs for a user here.
    execFileSync(
      'npm',
      [
        'install',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        '--offline',
        release.plain,
        release.platforms[release.hostPlatform],
      ],
      {
        cwd: project,
        stdio: ['ignore', 'ignore', 'inherit'],
      }
    );
    fs.writeFileSync(path.join(project, 'conformance.cjs'), `'use strict';\nmodule.exports = ${conformance.toString()};\n`);
    fs.writeFileSync(path.join(project, 'probe.cjs'), PROBE_CJS);
    fs.writeFileSync(path.join(project, 'probe.mjs'), PROBE_ESM);
    fs.writeFileSync(path.join(project, 'probe-bare.mjs'), PROBE_BARE);
    fs.writeFileSync(path.join(project, 'probe-bare.cjs'), PROBE_BARE_CJS);
    for (const [file, text] of Object.entries(HOSTILE)) fs.writeFileSync(path.join(project, file), text);

    const rows = RUNTIMES.map((runtime, i) => {
      const cjs = probe(bins[i], runtime.args, project, 'probe.cjs');
      const esm = probe(bins[i], runtime.args, project, 'probe.mjs');
      const hostile = Object.keys(HOSTILE).flatMap((file) =>
        probe(bins[i], runtime.args, project, file).failures.map((failure) => `${file}: ${failure}`)
      );
      const failures = [...cjs.failures, ...esm.failures.map((failure) => `esm: ${failure}`), ...hostile];
      if (cjs.backend === 'js' || esm.backend === 'js') failures.unshift('fell back to JavaScript: the addon did not load');
      return { name: runtime.name, version: cjs.runtime?.split(' ')[1] ?? '?', cjs: cjs.backend, esm: esm.backend, failures };
    });
    // Deno without permissions: the loader must fall back to WebAssembly, quietly and correctly.
    const denoIndex = RUNTIMES.findIndex((runtime) => runtime.name === 'deno');
    const bare = probe(bins[denoIndex], ['run'], project, 'probe-bare.mjs');
    const bareFailures =
      bare.backend === 'wasm' ? bare.failures : [`expected the WebAssembly tier, got ${bare.backend}`, ...bare.failures];
    rows.push({ name: 'deno, no flags', version: rows[denoIndex].version, cjs: '-', esm: bare.backend, failures: bareFailures });
    // Deno allowed to read but not to load an addon: WebAssembly, and NODE_DEBUG says why.
    const noFfi = probe(bins[denoIndex], ['run', '--allow-read', '--allow-env'], project, 'probe-bare.mjs', {
      NODE_DEBUG: 'bufferutil-simd',
    });
    const noFfiFailures = [...noFfi.failures];
    if (noFfi.backend !== 'wasm') noFfiFailures.unshift(`expected the WebAssembly tier, got ${noFfi.backend}`);
    if (!/BUFFERUTIL-SIMD \d+: no addon: [\s\S]*ffi/.test(noFfi.stderr) || !/BUFFERUTIL-SIMD \d+: tier wasm/.test(noFfi.stderr)) {
      noFfiFailures.push(`NODE_DEBUG did not say why: ${noFfi.stderr.slice(0, 300)}`);
    }
    rows.push({ name: 'deno, no ffi', version: rows[denoIndex].version, cjs: '-', esm: noFfi.backend, failures: noFfiFailures });
    // Node with addons off: the WebAssembly tier, through require() and import alike.
    RUNTIMES.forEach((runtime, i) => {
      if (!runtime.name.startsWith('node')) return;
      const esm = probe(bins[i], ['--no-addons'], project, 'probe-bare.mjs');
      const cjs = probe(bins[i], ['--no-addons'], project, 'probe-bare.cjs');
      const failures = [...esm.failures, ...cjs.failures];
      if (esm.backend !== 'wasm' || cjs.backend !== 'wasm')
        failures.unshift(`expected the WebAssembly tier, got ${cjs.backend} / ${esm.backend}`);
      rows.push({ name: `${runtime.name}, --no-addons`, version: rows[i].version, cjs: cjs.backend, esm: esm.backend, failures });
    });

    for (const row of rows) {
      const status = row.failures.length ? 'FAIL' : 'pass';
      console.log(
        `${row.name.padEnd(15)} ${String(row.version).padEnd(9)} cjs=${String(row.cjs).padEnd(7)} esm=${String(row.esm).padEnd(7)} ${status}`
      );
      for (const failure of row.failures) console.log(`    ${failure}`);
    }
    const failed = rows.filter((row) => row.failures.length).length;
    console.log(`${rows.length - failed} passed, ${failed} failed`);
    process.exitCode = failed ? 1 : 0;
  } finally {
    if (!process.env.KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { conformance };

if (require.main === module) main();
