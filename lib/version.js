'use strict';

// What an addon must match to be loaded (native.js): the package's version, and the interface between
// this JavaScript and the addon, which build.rs compiles into the addon and the addon reports as its
// `interface`. Strings and numbers here, not package.json read at run time: a bundle keeps this file but
// not the manifest beside it. `npm version` rewrites the version (scripts/version.js);
// __test__/loader.test.js fails wherever it differs from package.json. Raise `addonInterface` whenever
// the addon's exports or what they take change.
module.exports = { version: '4.2.0', addonInterface: 3 };
