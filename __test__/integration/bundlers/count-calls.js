'use strict';

// What both bundled apps (app-ws.js, app-websocket.js) count with: bundled into each of them.

// Counts calls to `mask` and `unmask` (the app's callers look them up on the module at each call). Null where
// they cannot be replaced: an empty module (webpack's `resolve.fallback` to false) or an ES module namespace.
function count(target) {
  if (typeof target.mask !== 'function') return null;
  const counts = { mask: 0, unmask: 0 };
  try {
    for (const name of ['mask', 'unmask']) {
      const original = target[name];
      target[name] = function counted(...args) {
        counts[name]++;
        return original.apply(this, args);
      };
    }
  } catch {
    return null;
  }
  return counts;
}

module.exports = { count };
