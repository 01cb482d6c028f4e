'use strict';

// Every masking implementation the benchmarks compare, loaded side by side in this one process.

const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const LEVEL_VARIABLE = 'BUFFERUTIL_SIMD_LEVEL';
// Widest first; `neon` only ever loads on aarch64.
const NATIVE_LEVELS = ['avx512', 'avx2', 'sse2', 'neon', 'scalar'];

/**
 * The addon at every SIMD level this CPU runs, in this process. The addon reads BUFFERUTIL_SIMD_LEVEL once,
 * when it loads, into a process-wide static of its own shared object; a copy of the file under another
 * name is a separate shared object (dlopen keys on the inode), so each copy keeps its own level. That puts
 * every level in the same mitata run as the peers instead of one child process per level, which on a
 * shared 2-core machine would be timed minutes apart.
 *
 * @returns {{ level: string, addon: object }[]} widest first; the level each copy reported, not the one asked for
 */
function loadNativeLevels(addonPath) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-levels-'));
  const saved = process.env[LEVEL_VARIABLE];
  const loaded = [];
  try {
    for (const level of NATIVE_LEVELS) {
      const copy = path.join(dir, `${level}.node`);
      fs.copyFileSync(addonPath, copy);
      process.env[LEVEL_VARIABLE] = level;
      const addon = require(copy);
      // A cap above what the CPU runs falls back to the widest it does: that copy is a duplicate.
      if (addon.backend === level) loaded.push({ level, addon });
    }
  } finally {
    if (saved === undefined) delete process.env[LEVEL_VARIABLE];
    else process.env[LEVEL_VARIABLE] = saved;
    // Loaded shared objects stay mapped after their files go.
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return loaded;
}

/**
 * ws's own byte loops: lib/buffer-util.js loaded afresh as if WS_NO_BUFFER_UTIL=1 and Node had no
 * http.websocketMask (ws prefers that when present, Node 26+), so its exports are the plain `_mask`/`_unmask`.
 */
function loadWsLoop() {
  const http = require('http');
  const file = path.join(path.dirname(require.resolve('ws')), 'lib', 'buffer-util.js');
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
 * @returns {{ implementations: object[], info: object }} implementations in table order; `info` says what loaded
 */
function loadImplementations() {
  const simd = require(ROOT);
  const native = require(path.join(ROOT, 'binding.js'));
  const simdJs = require(path.join(ROOT, 'fallback.js'));
  const bufferutil = require('bufferutil');
  const bufferutilJs = require('bufferutil/fallback');
  const http = require('http');

  if (bufferutil === bufferutilJs || bufferutil.mask === bufferutilJs.mask) {
    throw new Error('bufferutil loaded its JS fallback, not its native addon: the comparison would be meaningless');
  }
  const addonPath = loadedAddonPath(native);
  const levels = loadNativeLevels(addonPath).filter(({ level }) => level !== native.backend);

  const implementations = [
    { id: 'simd', label: `bufferutil-simd (index.js, ${simd.backend})`, group: 'simd', ...pick(simd) },
    { id: 'simd-native', label: `bufferutil-simd native (binding.js, ${native.backend})`, group: 'simd', ...pick(native) },
    ...levels.map(({ level, addon }) => ({
      id: `simd-${level}`,
      label: `bufferutil-simd native, ${level}`,
      group: 'simd-level',
      ...pick(addon),
    })),
    { id: 'simd-js', label: 'bufferutil-simd JS (fallback.js)', group: 'simd', ...pick(simdJs) },
    // The tier where the addon cannot load; benchmark/wasm.js compares it more closely.
    { id: 'simd-wasm', label: 'bufferutil-simd WebAssembly (wasm.js)', group: 'simd', ...pick(require(path.join(ROOT, 'wasm.js'))) },
    { id: 'bufferutil', label: 'bufferutil 4.1.0 native', group: 'peer', ...pick(bufferutil) },
    { id: 'bufferutil-js', label: 'bufferutil 4.1.0 fallback.js', group: 'peer', ...pick(bufferutilJs) },
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
  // Not masking: what the memory system allows for the same bytes (a copy for mask, a fill in place).
  implementations.push({ id: 'reference', label: 'reference: set (memcpy) / fill (memset)', group: 'reference' });

  const info = {
    backend: simd.backend,
    nativeLevel: native.backend,
    levels: [native.backend, ...levels.map(({ level }) => level)],
    addonPath,
    nodeCoreMask: typeof http.websocketMask === 'function',
  };
  return { implementations, info };
}

/** The file binding.js loaded (it tries several names): the module cache entry whose exports it returned. */
function loadedAddonPath(native) {
  const entry = Object.values(require.cache).find((module) => module.exports === native && module.id.endsWith('.node'));
  if (!entry) throw new Error('cannot tell which .node file binding.js loaded');
  return entry.filename;
}

function pick({ mask, unmask }) {
  return { mask, unmask };
}

module.exports = { loadImplementations, ROOT };
