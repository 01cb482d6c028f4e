'use strict';

// The native tier: this platform's addon at the level asked for, or a throw. Only this module holds the addon's
// entries, which cannot tell an immutable buffer (docs/safety.md): it hands out routed tiers.

const { requested } = require('../level');
const { loadAddon } = require('./addon');
const { routeAddon } = require('../route');

const { addon, file } = loadAddon();
const backend = addon.level(requested);
const { mask: maskWith, maskBlock, unmask: unmaskWith, unmaskBlock } = addon;
// Offset, length and key word reach the addon through a block no one else holds and no one can detach or move
// (src/binding/block.rs), not as arguments, where there is a SharedArrayBuffer.
const offered = typeof SharedArrayBuffer === 'function' ? new Float64Array(new SharedArrayBuffer(24)) : undefined;
const block = offered !== undefined && addon.useBlock(offered) === true ? offered : undefined;

/** Any views: the addon throws, writing nothing, on what does not fit. */
const mask =
  block === undefined
    ? maskWith
    : (source, output, offset, length, word) => {
        block[0] = offset;
        block[1] = length;
        block[2] = word;
        maskBlock(source, output);
      };

const unmask =
  block === undefined
    ? unmaskWith
    : (buffer, word) => {
        block[2] = word;
        unmaskBlock(buffer);
      };

module.exports = {
  backend,
  /** The tier over the addon, short payloads below `from`'s sizes in JavaScript. */
  tier: (from) => routeAddon(backend, from, mask, unmask),
  /** The level the addon runs this environment's calls at, as it reports it now. */
  level: () => addon.level(),
  file,
};
