'use strict';

// What an addon must match to load (lib/tiers/addon.js), written by scripts/version.js: this version and Cargo.toml's interface.
module.exports = { version: '4.2.0', addonInterface: 5 };
