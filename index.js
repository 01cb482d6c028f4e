'use strict';

// The package: the native addon where it loads (lib/native.js), else WebAssembly SIMD, else JavaScript
// (portable.js). `NODE_DEBUG=bufferutil-simd` says which and why.

const { requested } = require('./lib/level');
const debug = require('./lib/debug');

function load() {
  if (requested === 'js') {
    debug('tier js: BUFFERUTIL_SIMD_LEVEL=js');
    return require('./lib/fallback');
  }
  if (requested === 'wasm') {
    debug('no addon: BUFFERUTIL_SIMD_LEVEL=wasm');
  } else {
    try {
      const native = require('./lib/native');
      debug('tier %s: addon %s', native.backend, native.file);
      return native.withThresholds();
    } catch (error) {
      debug('no addon: %s', error?.message ?? error);
    }
  }
  // './portable.js' by its full name: rollup's node-resolve tries './portable.mjs' first for './portable'.
  return require('./portable.js');
}

const { mask, unmask, backend, backendFrom } = load();
module.exports = { mask, unmask, backend, backendFrom };
