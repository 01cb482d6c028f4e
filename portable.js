'use strict';

// The package without the addon: WebAssembly SIMD where the runtime has it, else JavaScript
// (lib/choose.js). What `import` gets where addons are off (portable.mjs).

module.exports = require('./lib/choose')();
