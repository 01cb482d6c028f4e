'use strict';

// The WebAssembly tier, `{ backend, tier(from) }`: lib/tiers/wasm-kernel.js's kernel, 64 KiB through its scratch at a
// time; throws where the runtime has no WebAssembly SIMD.

module.exports = require('./wasm-kernel').wasmKernel();
