'use strict';

// Every masking implementation the benchmarks compare, loaded side by side in this one process.

const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
// Widest first; `neon` only ever loads on aarch64.
const NATIVE_LEVELS = ['avx512', 'avx2', 'sse2', 'neon', 'scalar'];

/**
 * The addon at every SIMD level this CPU runs, in this process: `bind(level)` makes functions that carry
 * their own level, so every level sits in the same run as the peers.
 *
 * @returns {{ level: string, addon: object }[]} widest first; the level each binding reported, not the one asked for
 */
function loadNativeLevels(addon) {
  // A cap above what the CPU runs falls back to the widest it does: that binding is a duplicate.
  return NATIVE_LEVELS.map((level) => ({ level, addon: addon.bind(level) })).filter(({ level, addon }) => addon.backend === level);
}

/**
 * ws's own byte loops: lib/buffer-util.js loaded afresh as if WS_NO_BUFFER_UTIL=1 and Node had no
 * http.websocketMask (ws prefers that when present, Node 26+), so its exports are the plain `_mask`/`_unmask`.
 */
function loadWsLoop() {
  const http = require('http');
  // Beside ws's package.json: Bun resolves the bare name to ws's ES module wrapper elsewhere.
  const file = path.join(path.dirname(require.resolve('ws/package.json')), 'lib', 'buffer-util.js');
  const savedCache = require.cache[file];
  const savedEnv = process.env.WS_NO_BUFFER_UTIL;
  const core = { websocketMask: http.websocketMask, websocketUnmask: http.websocketUnmask };
  delete require.cache[file];
  process.env.WS_NO_BUFFER_UTIL = '1';
  if (core.websocketMask) Object.assign(http, { websocketMask: undefined, websocketUnmask: undefined });
  try {
    const { mask, unmask } = require(file);
    if (mask.name !== '_mask' || unmask.name !== '_unmask') throw new Error('ws buffer-util did not export its JS loops');
    return { mask, unmask };
  } finally {
    if (core.websocketMask) Object.assign(http, core);
    if (savedEnv === undefined) delete process.env.WS_NO_BUFFER_UTIL;
    else process.env.WS_NO_BUFFER_UTIL = savedEnv;
    if (savedCache) require.cache[file] = savedCache;
    else delete require.cache[file];
  }
}

/**
 * Every implementation, in table order, and what loaded. `levels: true` adds the addon capped at each other
 * SIMD level the CPU runs.
 *
 * @returns {{ implementations: object[], info: object }}
 */
function loadImplementations({ levels: withLevels = false } = {}) {
  const simd = require(ROOT);
  const native = require(path.join(ROOT, 'lib', 'native.js'));
  const simdJs = require(path.join(ROOT, 'lib', 'fallback.js'));
  const bufferutil = require('bufferutil');
  const bufferutilJs = require('bufferutil/fallback');
  const http = require('http');

  if (bufferutil === bufferutilJs || bufferutil.mask === bufferutilJs.mask) {
    throw new Error('bufferutil loaded its JS fallback, not its native addon: the comparison would be meaningless');
  }
  const { addon, addonPath } = loadedAddon();
  const levels = withLevels ? loadNativeLevels(addon).filter(({ level }) => level !== native.backend) : [];

  const implementations = [
    { id: 'simd', label: `bufferutil-simd (index.js, ${simd.backend})`, group: 'simd', ...pick(simd) },
    { id: 'simd-native', label: `bufferutil-simd native (lib/native.js, ${native.backend})`, group: 'simd', ...pick(native) },
    ...levels.map(({ level, addon }) => ({
      id: `simd-${level}`,
      label: `bufferutil-simd native, ${level}`,
      group: 'simd-level',
      ...pick(addon),
    })),
    { id: 'simd-js', label: 'bufferutil-simd JS (fallback.js)', group: 'simd', ...pick(simdJs) },
    // The tier where the addon cannot load; benchmark/wasm.js compares it more closely.
    { id: 'simd-wasm', label: 'bufferutil-simd WebAssembly (wasm.js)', group: 'simd', ...pick(require(path.join(ROOT, 'lib', 'wasm.js'))) },
    { id: 'bufferutil', label: 'bufferutil 4.1.0 native', group: 'peer', ...pick(bufferutil) },
    { id: 'ws-js', label: 'ws 8.23 JS loop', group: 'peer', ...loadWsLoop() },
  ];
  if (typeof http.websocketMask === 'function') {
    implementations.push({
      id: 'node',
      label: `node ${process.version} http.websocketMask`,
      group: 'peer',
      mask: http.websocketMask,
      unmask: http.websocketUnmask,
    });
  }

  const info = {
    backend: simd.backend,
    nativeLevel: native.backend,
    levels: [native.backend, ...levels.map(({ level }) => level)],
    addonPath,
    nodeCoreMask: typeof http.websocketMask === 'function',
  };
  return { implementations, info };
}

/** The addon lib/native.js loaded (it tries several places) and its file, as the loader says. */
function loadedAddon() {
  const { addon, file } = require(path.join(ROOT, 'lib', 'native.js'));
  return { addon, addonPath: file };
}

function pick({ mask, unmask }) {
  return { mask, unmask };
}

module.exports = { loadImplementations, ROOT };
