'use strict';

// The tiers that need no addon: WebAssembly SIMD where the runtime has it (wasm.js), else JavaScript
// (fallback.js). What `import` gets where addons are off (portable.mjs), and index.js without the addon.

const debug = require('./lib/debug');

function load() {
  try {
    const wasm = require('./lib/wasm');
    debug('tier wasm');
    return wasm;
  } catch (error) {
    debug('tier js: %s', error?.message ?? error);
    return require('./lib/fallback');
  }
}

const { mask, unmask, backend, backendFrom } = load();
module.exports = { mask, unmask, backend, backendFrom };
