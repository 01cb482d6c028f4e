'use strict';

// Which tier an entry gets: BUFFERUTIL_SIMD_LEVEL first, then the addon where the entry may load one, else
// WebAssembly SIMD, else JavaScript. The tier modules (native.js, wasm.js, fallback.js) share one shape,
// `{ backend, tier(from) }`. `NODE_DEBUG=bufferutil-simd` says which and why.

const { requested } = require('./level');
const { NATIVE_FROM, WASM_FROM } = require('./thresholds');

/** `util.debuglog`, where the runtime has it. */
const debug = (() => {
  try {
    return require('node:util').debuglog('bufferutil-simd');
  } catch {
    return () => {};
  }
})();

/** The tier module and its short-payload sizes; `loadNative` returns lib/tiers/native.js or throws. */
function choose(loadNative) {
  if (requested === 'js') {
    debug('tier js: BUFFERUTIL_SIMD_LEVEL=js');
    return { kernel: require('./tiers/fallback') };
  }
  if (requested === 'wasm') {
    debug('no addon: BUFFERUTIL_SIMD_LEVEL=wasm');
  } else if (loadNative !== undefined) {
    try {
      const native = loadNative();
      debug('tier %s: addon %s', native.backend, native.file);
      return { kernel: native, from: NATIVE_FROM };
    } catch (error) {
      debug('no addon: %s', error?.message ?? error);
    }
  }
  try {
    const wasm = require('./tiers/wasm');
    debug('tier wasm');
    return { kernel: wasm, from: WASM_FROM };
  } catch (error) {
    debug('tier js: %s', error?.message ?? error);
    return { kernel: require('./tiers/fallback') };
  }
}

/** The package's exports, `{ mask, unmask, backend }`, from the chosen tier. */
module.exports = function entry(loadNative) {
  const { kernel, from } = choose(loadNative);
  return kernel.tier(from);
};
