'use strict';

// The one list of implementations the suites run, loaded on demand so that a child loads only its own.

const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const lib = (name) => path.join(ROOT, 'lib', name);

// name → loader. `native`, `fallback`: the tiers at every size; `wasm`: as the package has it; `wasm-every-size`:
// every size through the module, 64 bytes per trip through its scratch.
const LOADERS = {
  native: () => require(lib('tiers/native.js')).tier(),
  fallback: () => require(lib('tiers/fallback.js')).tier(),
  wasm: () => require(lib('tiers/wasm.js')).tier(require(lib('thresholds.js')).WASM_FROM),
  'wasm-every-size': () => require(lib('tiers/wasm-kernel.js')).wasmKernel(64).tier(),
  index: () => require(ROOT),
};

const NAMES = Object.keys(LOADERS);

function load(name) {
  const loader = LOADERS[name];
  if (loader === undefined) throw new Error(`no implementation named ${name}; there are ${NAMES.join(', ')}`);
  return loader();
}

// The addon's own entries, from a load of its file as any code in the process could make one (the package hands
// them to no one), at the level BUFFERUTIL_SIMD_LEVEL asks for.
function rawAddon() {
  const { file } = require(lib('tiers/native.js'));
  const addon = require(file);
  delete require.cache[file];
  addon.level(require(lib('level.js')).requested);
  return addon;
}

module.exports = { ROOT, NAMES, load, rawAddon };
