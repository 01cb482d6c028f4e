'use strict';

// The implementations bench.js can time, by their `--impl=` ids: each loader returns `{ label, mask, unmask }`
// (`ceiling`: not a masker, never checked) or why it is not available here (the run skips it).

const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { fail, runtime } = require('./common');

const ROOT = path.resolve(__dirname, '..', '..');
const version = (name) => require(`${name}/package.json`).version;
// Beside ws's package.json: Bun resolves the bare name to ws's ES module wrapper elsewhere.
const WS_BUFFER_UTIL = path.join(path.dirname(require.resolve('ws/package.json')), 'lib', 'buffer-util.js');

/** ws's byte loops: its lib/buffer-util.js run afresh as if WS_NO_BUFFER_UTIL=1 and Node had no http.websocketMask. */
function wsLoop() {
  const loaded = { exports: {} };
  const requireWs = Module.createRequire(WS_BUFFER_UTIL);
  const run = new Function('module', 'require', 'process', fs.readFileSync(WS_BUFFER_UTIL, 'utf8'));
  run(loaded, (id) => (id === 'http' ? {} : requireWs(id)), { env: { WS_NO_BUFFER_UTIL: '1' } });
  const { mask, unmask } = loaded.exports;
  if (mask.name !== '_mask' || unmask.name !== '_unmask') throw new Error('ws lib/buffer-util.js did not export its JS loops');
  return { label: `ws ${version('ws')} JS loop`, mask, unmask };
}

/** The tier `file` (native.js, wasm.js, fallback.js) of this package at every size: without the JS loop it hands short payloads to. */
const tierOf = (file) => require(path.join(ROOT, 'lib', 'tiers', file)).tier();

const LOADERS = {
  'bufferutil-simd': () => ({ ...require(ROOT), label: `bufferutil-simd (index.js, ${require(ROOT).backend})` }),
  // The tiers at every size: what the thresholds are measured against (BUFFERUTIL_SIMD_LEVEL=wasm: the package's WebAssembly).
  native: () => ({ label: 'bufferutil-simd addon at every size (lib/tiers/native.js)', ...tierOf('native.js') }),
  wasm: () => ({ label: 'bufferutil-simd WebAssembly at every size (lib/tiers/wasm.js)', ...tierOf('wasm.js') }),
  js: () => ({ label: 'bufferutil-simd JS (lib/tiers/fallback.js)', ...tierOf('fallback.js') }),
  // The addon's tier with every size timed below its thresholds: the loop index.js runs on short payloads, as it runs
  // it. A Smi, not Infinity: the tier reads `buffer[from - 1]`, and a non-integer index takes a slow generic lookup.
  loop: () => ({
    label: "bufferutil-simd's JavaScript loop at every size (lib/tiers/native.js, thresholds past any size timed)",
    ...require(path.join(ROOT, 'lib', 'tiers', 'native.js')).tier({ mask: 2 ** 30, unmask: 2 ** 30 }),
  }),
  bufferutil: () => {
    const lib = require('bufferutil');
    // Without its prebuilt addon bufferutil is a JS loop: a comparison with that would say nothing.
    if (lib.mask === require('bufferutil/fallback').mask) return 'bufferutil loaded its JS fallback, not its addon';
    return { label: `bufferutil ${version('bufferutil')} addon`, mask: lib.mask, unmask: lib.unmask };
  },
  'ws-js': wsLoop,
  core: () => {
    const http = require('node:http');
    if (typeof http.websocketMask !== 'function') return `${runtime} has no http.websocketMask (Node 26.12+ has)`;
    return { label: `${runtime} http.websocketMask`, mask: http.websocketMask, unmask: http.websocketUnmask };
  },
  // Not a masker: the cost of touching every byte once, a copy into another buffer and a fill in place.
  memcpy: () => ({
    label: 'ceiling: memcpy (set) / memset (fill), not masking',
    ceiling: true,
    mask: (source, _key, output, offset, length) =>
      source === output ? output.fill(0x5a, 0, length) : output.set(source, offset),
    unmask: (buffer) => buffer.fill(0x5a),
  }),
  before: ({ before }) => {
    if (!before) return 'no --before=DIR given';
    const lib = require(path.resolve(before));
    return { ...lib, label: `before: ${path.resolve(before)} (${lib.backend})` };
  },
};

/** The implementations `ids` names, in order: `{ loaded: [{ id, label, ceiling, mask, unmask }], skipped: [{ id, reason }] }`. */
function load(ids, options = {}) {
  const [loaded, skipped] = [[], []];
  for (const id of ids) {
    if (!LOADERS[id]) fail(`--impl: unknown implementation ${id}, not one of ${Object.keys(LOADERS).join(', ')}`, 2);
    const result = LOADERS[id](options);
    if (typeof result === 'string') skipped.push({ id, reason: result });
    else loaded.push({ id, label: result.label, ceiling: Boolean(result.ceiling), mask: result.mask, unmask: result.unmask });
  }
  return { loaded, skipped };
}

module.exports = { load, WS_BUFFER_UTIL };
