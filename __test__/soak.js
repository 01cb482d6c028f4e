'use strict';

// Soak: 10^7 native calls of mixed sizes and kinds (mask and unmask, every key form, error paths too),
// then RSS and external memory compared with a baseline taken after a warm-up, each after full GCs.
// Fails if either grew by 1 MiB or more. Run as `node --expose-gc __test__/soak.js [CALLS]`.

const path = require('node:path');

// The addon's tier at every size: no JavaScript loop below the thresholds, so every call reaches it.
const native = require(path.join(__dirname, '..', 'lib', 'tiers', 'native.js')).tier();
const CALLS = Number(process.argv[2]) || 10_000_000;
const WARM_UP = Math.min(1_000_000, CALLS / 10);
const LIMIT = 1024 * 1024;

// Everything the loop touches is allocated up front, so only the addon could make the process grow.
const SIZES = [0, 1, 7, 16, 63, 64, 100, 256, 1000, 1500, 4096, 16384, 65536];
const source = Buffer.alloc(65536 + 64, 0xa5);
const output = Buffer.alloc(65536 + 64);
const views = SIZES.map((size) => [
  new Uint8Array(source.buffer, source.byteOffset + 3, size),
  new DataView(output.buffer, output.byteOffset + 1, size + 8),
]);
const keys = [Buffer.from([1, 2, 3, 4]), [5, 6, 7, 8], new DataView(new ArrayBuffer(4))];
const badKey = [1, 2, 3, 999];

function work(count) {
  let errors = 0;
  for (let i = 0; i < count; i++) {
    // Mostly small messages, as a WebSocket sees them; the large ones now and then.
    const pick = i % 97 === 0 ? SIZES.length - 1 - (i % 3) : i % 9;
    const [sourceView, outputView] = views[pick];
    const key = keys[i % 3];
    if ((i & 7) === 7) native.unmask(sourceView, key);
    else if (i % 1024 !== 6) native.mask(sourceView, key, outputView, i & 7, SIZES[pick]);
    else {
      // Error paths, every 1024th call: a bad key, or a length past the end.
      try {
        native.mask(sourceView, i & 1024 ? badKey : key, outputView, 0, SIZES[pick] + 1000);
      } catch {
        errors++;
      }
    }
  }
  return errors;
}

/** RSS and external memory after full collections. */
function memory() {
  for (let i = 0; i < 4; i++) global.gc();
  const { rss, external } = process.memoryUsage();
  return { rss, external };
}

work(WARM_UP);
const before = memory();
const errors = work(CALLS);
const after = memory();

console.log(`backend ${native.backend}: ${CALLS} calls (${errors} of them throwing), after ${WARM_UP} warm-up calls`);
const growth = Object.keys(after).map((name) => `${name} ${((after[name] - before[name]) / 1024 / 1024).toFixed(2)} MiB`);
const grown = Object.keys(after).filter((name) => after[name] - before[name] >= LIMIT);
console.log(`growth: ${growth.join(', ')}`);
if (grown.length > 0) {
  console.error(`FAIL: ${grown.join(' and ')} grew by 1 MiB or more`);
  process.exitCode = 1;
}
