'use strict';

// Which tier an entry gets: BUFFERUTIL_SIMD_LEVEL first, then the addon where the entry may load one, else WebAssembly SIMD,
// else JavaScript. The tier modules share one shape, `{ backend, tier(from) }`; `NODE_DEBUG=bufferutil-simd` says which and why.

const { requested } = require('./level');
const { NATIVE_FROM, WASM_FROM } = require('./thresholds');

let debug = () => {};
try {
  debug = require('node:util').debuglog('bufferutil-simd');
} catch {}

/** The package's exports, `{ mask, unmask, backend }`; `loadNative` returns lib/tiers/native.js or throws. */
module.exports = function choose(loadNative) {
  if (requested === 'js') {
    debug('tier js: BUFFERUTIL_SIMD_LEVEL=js');
    return require('./tiers/fallback').tier();
  }
  if (requested === 'wasm') {
    debug('no addon: BUFFERUTIL_SIMD_LEVEL=wasm');
  } else if (loadNative !== undefined) {
    try {
      const native = loadNative();
      debug('tier %s: addon %s', native.backend, native.file);
      return native.tier(NATIVE_FROM);
    } catch (error) {
      debug('no addon: %s', error?.message ?? error);
    }
  }
  try {
    const wasm = require('./tiers/wasm');
    debug('tier wasm');
    return wasm.tier(WASM_FROM);
  } catch (error) {
    debug('tier js: %s', error?.message ?? error);
    return require('./tiers/fallback').tier();
  }
};
