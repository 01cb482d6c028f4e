'use strict';

// Which tier an entry of the package gets, decided here for every entry: BUFFERUTIL_SIMD_LEVEL
// (lib/level.js) first, then the native addon where the entry may load one (index.js passes its loader),
// else WebAssembly SIMD, else JavaScript. `NODE_DEBUG=bufferutil-simd` says which and why.

const { requested } = require('./level');
const debug = require('./debug');

/** The tier's `{ mask, unmask, backend, backendFrom }`; `loadNative` returns lib/native.js or throws. */
function choose(loadNative) {
  if (requested === 'js') {
    debug('tier js: BUFFERUTIL_SIMD_LEVEL=js');
    return require('./fallback');
  }
  if (requested === 'wasm') {
    debug('no addon: BUFFERUTIL_SIMD_LEVEL=wasm');
  } else if (loadNative !== undefined) {
    try {
      const native = loadNative();
      debug('tier %s: addon %s', native.backend, native.file);
      return native.withThresholds();
    } catch (error) {
      debug('no addon: %s', error?.message ?? error);
    }
  }
  try {
    const wasm = require('./wasm');
    debug('tier wasm');
    return wasm;
  } catch (error) {
    debug('tier js: %s', error?.message ?? error);
    return require('./fallback');
  }
}

/** The package's exports, from the chosen tier. */
module.exports = function entry(loadNative) {
  const { mask, unmask, backend, backendFrom } = choose(loadNative);
  return { mask, unmask, backend, backendFrom };
};
