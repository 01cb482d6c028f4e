'use strict';

// The package: the native addon where it loads, else WebAssembly SIMD, else JavaScript (lib/choose.js).

module.exports = require('./lib/choose')(() => require('./lib/tiers/native'));
