'use strict';

// The tiers that need no addon: WebAssembly SIMD where the runtime has it (wasm.js), else JavaScript
// (fallback.js). What `import` gets where addons are off (portable.mjs), and index.js without the addon.

function load() {
  try {
    const { mask, unmask, backend, backendFrom } = require('./lib/wasm');
    return { mask, unmask, backend, backendFrom };
  } catch {
    const { mask, unmask, backend, backendFrom } = require('./lib/fallback');
    return { mask, unmask, backend, backendFrom };
  }
}

module.exports = load();
