'use strict';

// What both bundled apps (app-ws.js, app-websocket.js) share: bundled into each of them.

const crypto = require('crypto');
const bufferUtil = require('bufferutil');

// Counts calls to `mask` and `unmask` (the app's callers look them up on the module at each call). Null for an empty
// module (webpack's `resolve.fallback` to false).
function count(target) {
  if (typeof target.mask !== 'function') return null;
  const counts = { mask: 0, unmask: 0 };
  for (const name of ['mask', 'unmask']) {
    const original = target[name];
    target[name] = function counted(...args) {
      counts[name]++;
      return original.apply(this, args);
    };
  }
  return counts;
}

/** Echoes a random payload of each of `sizes` between a server and a client on 127.0.0.1, through the `echo` that
 * `open()` gives, every byte checked, then exits. Prints one JSON line: the backend of bufferutil, how often the
 * echoes called it, and how often they should have. An error rejects: the app ends with exit code 1, the error on stderr. */
async function echoAll(sizes, expected, open) {
  const echo = await open();
  const calls = count(bufferUtil);
  for (const size of sizes) {
    const sent = crypto.randomBytes(size);
    if (!sent.equals(await echo(sent))) throw new Error(`the echo of ${size} bytes differs`);
  }
  console.log(JSON.stringify({ backend: bufferUtil.backend, calls, expected }));
  process.exit(0);
}

module.exports = { echoAll };
