'use strict';

// This package's version, which an addon must match to be loaded (native.js). A string here, not
// package.json read at run time: a bundle keeps this file but not the manifest beside it. `npm version`
// rewrites it (scripts/version.js); __test__/loader.test.js fails wherever it differs from package.json.
module.exports = '4.1.0';
