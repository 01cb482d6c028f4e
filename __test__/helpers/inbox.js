'use strict';

/** A queue of what `subscribe(push)` delivers, read with `next()`. */
function inbox(subscribe) {
  const items = [];
  let waiting = null;
  subscribe((item) => {
    items.push(item);
    waiting?.();
  });
  return () =>
    items.length
      ? Promise.resolve(items.shift())
      : new Promise((resolve) => (waiting = () => ((waiting = null), resolve(items.shift()))));
}

module.exports = { inbox };
