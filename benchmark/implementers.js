'use strict';

// `node benchmark/implementers.js [--quick]`: for a WebSocket stack deciding from which size to call this
// package instead of its own byte loop (docs/implementers.md). undici's two loops — into the frame buffer
// after the header (createFrame) and in place (createFastTextFrame) — against `mask` / `unmask` with
// undici's key as it is (an Array of 4 numbers) and with the same key as a 4-byte Uint8Array. ns per
// call, minimum over interleaved rounds (the floor a caller pays); each implementation in a timing loop of
// its own (one call site each), 16 rotating inputs and keys.

const crypto = require('crypto');
const path = require('path');

const masker = require(path.resolve(__dirname, '..'));
const QUICK = process.argv.includes('--quick') || /^(1|true|yes)$/i.test(process.env.BENCH_QUICK || '');
const SIZES = [16, 32, 64, 80, 128, 192, 256, 512, 1024, 16384];
const ROUNDS = QUICK ? 2 : 9;

const implementations = {
  'loop into frame': (source, key, output, offset, length) => {
    for (let i = 0; i < length; ++i) output[offset + i] = source[i] ^ key[i & 3];
  },
  'mask, Array key': (source, key, output, offset, length) => masker.mask(source, key, output, offset, length),
  'mask, view key': (source, key, output, offset, length, keyView) => masker.mask(source, keyView, output, offset, length),
  'loop in place': (source, key) => {
    for (let i = 0, n = source.length; i < n; ++i) source[i] ^= key[i & 3];
  },
  'unmask, Array key': (source, key) => masker.unmask(source, key),
  'unmask, view key': (source, key, output, offset, length, keyView) => masker.unmask(source, keyView),
};

// A timing loop per implementation, compiled separately so that no call site is shared.
const timers = Object.fromEntries(
  Object.keys(implementations).map((name) => [
    name,
    new Function(
      'fn',
      'inputs',
      'iterations',
      `const start = process.hrtime.bigint();
       for (let i = 0; i < iterations; i++) { const x = inputs[i & 15]; fn(x[0], x[1], x[2], x[3], x[4], x[5]); }
       return Number(process.hrtime.bigint() - start) / iterations;`,
    ),
  ]),
);

console.log(`node ${process.version}; bufferutil-simd backend ${masker.backend}; backendFrom ${JSON.stringify(masker.backendFrom)}`);
console.log(`ns per call, minimum of ${ROUNDS} interleaved rounds; output offset 6 (≤ 125 B) or 8, as undici's header\n`);
const names = Object.keys(implementations);
console.log(`| bytes | ${names.join(' | ')} |`);
console.log(`|---:|${names.map(() => '---:|').join('')}`);
for (const size of SIZES) {
  const offset = size > 125 ? 8 : 6;
  const inputs = Array.from({ length: 16 }, () => {
    const key = crypto.randomBytes(4);
    return [new Uint8Array(crypto.randomBytes(size)), [...key], Buffer.allocUnsafe(size + offset), offset, size, new Uint8Array(key)];
  });
  const iterations = Math.max(QUICK ? 200 : 2000, Math.min(QUICK ? 5000 : 200_000, (4e6 / size) | 0));
  const best = Object.fromEntries(names.map((name) => [name, Infinity]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names) best[name] = Math.min(best[name], timers[name](implementations[name], inputs, iterations));
  }
  console.log(`| ${size} | ${names.map((name) => best[name].toFixed(0)).join(' | ')} |`);
}
