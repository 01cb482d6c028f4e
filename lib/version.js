'use strict';

// What an addon must match to be loaded (lib/tiers/addon.js): this version (a bundle drops package.json) and
// `addonInterface`, Cargo.toml's `addon-interface`; scripts/version.js (`npm version`) writes both.
module.exports = { version: '4.2.0', addonInterface: 5 };
