'use strict';

// The check bench.js runs before it times anything: every implementation against the test suite's byte loop
// (__test__/helpers/reference.js) on every timed size and odd lengths around each vector width and threshold,
// aligned and at byteOffset 1, comparing whole backing stores with guards around each view.

const crypto = require('node:crypto');
const reference = require('../../__test__/helpers/reference');

const OFFSET = 6; // the smallest masked frame header: ws writes the payload after it
const GUARD = 8; // keeps the view's alignment
const AROUND = [16, 32, 48, 64, 96, 128, 176, 256, 1024].flatMap((n) => [n - 1, n + 1]); // vector widths and thresholds
const ODD_LENGTHS = [0, 1, 2, 3, 5, 7, 23, 24, 4097, 65537].concat(AROUND);

/** A `length`-byte view `byteOffset` bytes into a backing store of its own, guards around it. */
function guarded(length, byteOffset) {
  const backing = Buffer.alloc(GUARD + byteOffset + length + GUARD, 0xee);
  return { backing, view: backing.subarray(GUARD + byteOffset, GUARD + byteOffset + length) };
}

/** Runs every op of every implementation on every length; returns the failures (empty: all agree). */
function check(implementations, sizes) {
  const key = crypto.randomBytes(4);
  const failures = [];
  const expect = (actual, expected, what) => {
    if (actual.equals(expected)) return;
    failures.push(`${what}: first wrong byte at ${actual.findIndex((byte, i) => byte !== expected[i])} of the backing store`);
  };
  for (const length of new Set([...ODD_LENGTHS, ...sizes])) {
    for (const byteOffset of [0, 1]) {
      const source = guarded(length, byteOffset);
      crypto.randomFillSync(source.view);
      const copy = Buffer.from(source.backing);
      const expectedInto = guarded(OFFSET + length, 0);
      reference.mask(source.view, key, expectedInto.view, OFFSET, length);
      const expectedInPlace = Buffer.from(source.backing);
      reference.unmask(expectedInPlace.subarray(GUARD + byteOffset, GUARD + byteOffset + length), key);
      for (const impl of implementations) {
        const where = `${impl.id}, ${length} B at byteOffset ${byteOffset}`;
        const output = guarded(OFFSET + length, 0);
        impl.mask(source.view, key, output.view, OFFSET, length);
        expect(output.backing, expectedInto.backing, `mask at offset ${OFFSET}, ${where}`);
        expect(source.backing, copy, `mask leaves its source alone, ${where}`);
        for (const [op, run] of [
          ['mask in place', (view) => impl.mask(view, key, view, 0, length)],
          ['unmask', (view) => impl.unmask(view, key)],
        ]) {
          const buffer = guarded(length, byteOffset);
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
