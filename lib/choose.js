'use strict';

// Which tier an entry of the package gets, decided here for every entry: BUFFERUTIL_SIMD_LEVEL
// (lib/level.js) first, then the native addon where the entry may load one (index.js passes its loader),
// else WebAssembly SIMD, else JavaScript. Each tier module (lib/native.js, lib/wasm.js, lib/fallback.js)
// has one shape, `{ backend, tier(from) }`: its kernel routed by lib/route.js, short payloads staying in
// JavaScript below the sizes lib/thresholds.js measured for it. `NODE_DEBUG=bufferutil-simd` says which and why.

const { requested } = require('./level');
const { NATIVE_FROM, WASM_FROM } = require('./thresholds');

/** `util.debuglog`, where the runtime has it (Node, Bun, Deno): printed once per environment, at load. */
const debug = (() => {
  try {
    return require('node:util').debuglog('bufferutil-simd');
  } catch {
    return () => {};
  }
})();

/** The tier module and its short-payload sizes; `loadNative` returns lib/native.js or throws. */
function choose(loadNative) {
  if (requested === 'js') {
    debug('tier js: BUFFERUTIL_SIMD_LEVEL=js');
    return { kernel: require('./fallback') };
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
    const wasm = require('./wasm');
    debug('tier wasm');
    return { kernel: wasm, from: WASM_FROM };
  } catch (error) {
    debug('tier js: %s', error?.message ?? error);
    return { kernel: require('./fallback') };
  }
}

/** The package's exports, `{ mask, unmask, backend }`, from the chosen tier. */
module.exports = function entry(loadNative) {
  const { kernel, from } = choose(loadNative);
  return kernel.tier(from);
};
