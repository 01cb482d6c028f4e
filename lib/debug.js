'use strict';

// `NODE_DEBUG=bufferutil-simd`: which tier the package chose and why, through `util.debuglog` where the
// runtime has it (Node, Bun, Deno), printed once per environment, as the package loads.

function debuglog() {
  try {
    return require('node:util').debuglog('bufferutil-simd');
  } catch {
    return () => {};
  }
}

module.exports = debuglog();
