'use strict';

// The native tier: this platform's addon at the level asked for; throws when none loads. Only this module
// holds the addon's entries, which cannot tell an immutable buffer (docs/safety.md): it hands out routed tiers.

const { requested } = require('../level');
const { loadAddon } = require('./addon');
const { routeAddon } = require('../route');

const { addon, file } = loadAddon();
const backend = addon.level(requested);
const { mask, unmask } = addon;

module.exports = {
  backend,
  /** The tier over the addon, short payloads below `from`'s sizes in JavaScript. */
  tier: (from) => routeAddon(backend, from, mask, unmask),
  /** The level the addon runs this environment's calls at, as it reports it now. */
  level: () => addon.level(),
  file,
};
