'use strict';

// The package without the addon (lib/choose.js): what `import` gets where addons are off (portable.mjs).

module.exports = require('./lib/choose')();
