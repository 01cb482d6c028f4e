'use strict';

// The one list of implementations the suites run (conformance, hostile matrix, differential), loaded on
// demand so that a child process loads only the one it tests; and the SIMD level the addon should pick on
// this CPU, worked out from the CPU itself rather than from what the addon reports.

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const lib = (name) => path.join(ROOT, 'lib', name);

/**
 * name → loader. `native`, `fallback`: the tiers at every size; `wasm`: as the package has it;
 * `wasm-every-size`: every size through the module, 64 bytes per trip through its scratch.
 */
const LOADERS = {
  native: () => require(lib('native.js')).tier(),
  fallback: () => require(lib('fallback.js')).tier(),
  wasm: () => require(lib('wasm.js')).tier(require(lib('thresholds.js')).WASM_FROM),
  'wasm-every-size': () => require(lib('wasm.js')).withChunk(64).tier(),
  index: () => require(ROOT),
};

const NAMES = Object.keys(LOADERS);

function load(name) {
  const loader = LOADERS[name];
  if (loader === undefined) throw new Error(`no implementation named ${name}; there are ${NAMES.join(', ')}`);
  return loader();
}

/**
 * The addon's own entries, from a load of its file as any code in the process could make one (the package
 * hands them to no one), at the level BUFFERUTIL_SIMD_LEVEL asks for.
 */
function rawAddon() {
  const { file } = require(lib('native.js'));
  const addon = require(file);
  delete require.cache[file];
  addon.level(process.env.BUFFERUTIL_SIMD_LEVEL);
  return addon;
}

const RANKS = { scalar: 0, sse2: 1, neon: 1, avx2: 2, avx512: 3 };

/**
 * The level the addon should run at here: the widest this CPU has (from /proc/cpuinfo on Linux), capped by
 * BUFFERUTIL_SIMD_LEVEL; undefined where the CPU cannot be read.
 */
function expectedNativeLevel(cap = process.env.BUFFERUTIL_SIMD_LEVEL) {
  let levels;
  if (process.arch === 'arm64') {
    levels = ['scalar', 'neon'];
  } else if (process.arch === 'x64') {
    let flags;
    try {
      flags = new Set(/^flags\s*:(.*)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))[1].trim().split(/\s+/));
    } catch {
      return undefined;
    }
    levels = ['scalar', 'sse2'];
    if (flags.has('avx2')) levels.push('avx2');
    if (flags.has('avx512f') && flags.has('avx512bw')) levels.push('avx512');
  } else {
    return undefined;
  }
  const limit = RANKS[String(cap).trim().toLowerCase()] ?? Infinity;
  return levels.filter((level) => RANKS[level] <= limit).pop();
}

module.exports = { ROOT, NAMES, load, rawAddon, expectedNativeLevel };
