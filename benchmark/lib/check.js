'use strict';

// The correctness check benchmark/bench.js runs before it times anything: every implementation against the
// RFC 6455 byte loop, on every timed size and on odd lengths around each vector width and threshold, with
// the source aligned and at byteOffset 1. Whole backing stores are compared, with guard bytes around each
// view, so a write outside the view fails too.

const crypto = require('node:crypto');

const OFFSET = 6; // the smallest masked frame header: ws writes the payload after it
const GUARD = 8; // keeps the view's alignment
const ODD_LENGTHS = [
  0, 1, 2, 3, 5, 7, 15, 17, 23, 24, 31, 33, 47, 49, 63, 65, 95, 97, 127, 129, 175, 177, 255, 257, 1023, 1025, 4097, 65537,
];

/** `output[offset + i] = source[i] ^ key[i & 3]`: what every implementation must do. */
function byteLoop(source, key, output, offset, length) {
  for (let i = 0; i < length; i++) output[offset + i] = source[i] ^ key[i & 3];
}

/** A `length`-byte view of random bytes, `byteOffset` bytes into a backing store of its own with guards. */
function guarded(length, byteOffset, fill) {
  const backing = Buffer.alloc(GUARD + byteOffset + length + GUARD, fill);
  return { backing, view: backing.subarray(GUARD + byteOffset, GUARD + byteOffset + length) };
}

function firstDifference(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/** Runs every op of every implementation on every length; returns the failures (empty: all agree). */
function check(implementations, sizes) {
  const key = crypto.randomBytes(4);
  const failures = [];
  const expect = (actual, expected, what) => {
    if (!actual.equals(expected))
      failures.push(`${what}: first wrong byte at ${firstDifference(actual, expected)} of the backing store`);
  };
  for (const length of [...new Set([...ODD_LENGTHS, ...sizes])]) {
    for (const byteOffset of [0, 1]) {
      const source = guarded(length, byteOffset, 0xee);
      crypto.randomFillSync(source.view);
      const copy = Buffer.from(source.backing);
      const into = guarded(OFFSET + length, 0, 0xee);
      const expectedInto = Buffer.from(into.backing);
      byteLoop(source.view, key, expectedInto.subarray(GUARD), OFFSET, length);
      const expectedInPlace = Buffer.from(source.backing);
      byteLoop(source.view, key, expectedInPlace.subarray(GUARD + byteOffset), 0, length);
      for (const impl of implementations) {
        const where = `${impl.id}, ${length} B at byteOffset ${byteOffset}`;
        const output = guarded(OFFSET + length, 0, 0xee);
        impl.mask(source.view, key, output.view, OFFSET, length);
        expect(output.backing, expectedInto, `mask at offset ${OFFSET}, ${where}`);
        expect(source.backing, copy, `mask leaves its source alone, ${where}`);
        for (const [op, run] of [
          ['mask in place', (view) => impl.mask(view, key, view, 0, length)],
          ['unmask', (view) => impl.unmask(view, key)],
        ]) {
          const buffer = guarded(length, byteOffset, 0xee);
          buffer.view.set(source.view);
          run(buffer.view);
          expect(buffer.backing, expectedInPlace, `${op}, ${where}`);
        }
      }
    }
  }
  return failures;
}

module.exports = { check, OFFSET };
