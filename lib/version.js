'use strict';

// What an addon must match to be loaded (lib/tiers/addon.js): this version (a bundle drops package.json; `npm
// version` rewrites it) and `addonInterface`, compiled in by build.rs: raise it when the addon's exports change.
module.exports = { version: '4.2.0', addonInterface: 5 };
