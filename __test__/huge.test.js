'use strict';

// Views of more than 4 GiB: lengths and offsets past 2^32 must neither wrap nor truncate. Opt-in, as it
// needs ~9 GB of RAM and some seconds: BUFFERUTIL_SIMD_HUGE=1 node --test __test__/huge.test.js
// (Node 20 caps a Uint8Array at 2^32 elements, so the huge views are Float64Arrays and DataViews; the
// spot checks read through small Uint8Array windows around byte 2^32.)

const { test } = require('node:test');
const assert = require('node:assert');
const reference = require('./helpers/reference');
const { load } = require('./helpers/implementations');

const SKIP = process.env.BUFFERUTIL_SIMD_HUGE === '1' ? false : 'opt-in: set BUFFERUTIL_SIMD_HUGE=1 (needs ~9 GB of RAM)';
const FOUR_GIB = 2 ** 32;
const SIZE = FOUR_GIB + 8192;
const KEY = [0x5a, 0x0f, 0xc3, 0x81];
/** Byte ranges checked around the 2^32 boundary, the start and the end. */
const WINDOWS = [
  [0, 64],
  [FOUR_GIB - 100, FOUR_GIB + 100],
  [SIZE - 64, SIZE],
];

/** Bytes `from`..`to` of the pattern, masked by the reference loop or not (each window starts at a multiple of 4). */
function pattern(from, to, masked) {
  const bytes = Uint8Array.from({ length: to - from }, (_, i) => (from + i) * 7);
  if (masked) reference.unmask(bytes, KEY);
  return bytes;
}

/** Asserts every window, moved by `shift` bytes, holds the pattern, masked or not. */
function check(buffer, masked, shift = 0) {
  for (const [from, to] of WINDOWS) {
    const bytes = new Uint8Array(buffer, from + shift, to - from);
    assert.deepStrictEqual(bytes, pattern(from, to, masked), `bytes ${from + shift}..${to + shift}`);
  }
}

for (const name of ['native', 'index']) {
  test(`${name}: > 4 GiB views`, { skip: SKIP }, async (t) => {
    const impl = load(name);
    const buffer = new ArrayBuffer(SIZE);
    // The pattern in the checked windows; the rest of the buffer stays zero.
    for (const [from, to] of WINDOWS) new Uint8Array(buffer, from, to - from).set(pattern(from, to, false));

    await t.test('unmask of a 4 GiB + 8 KiB Float64Array in place, and of a DataView back; mask in place, length > 2^32', () => {
      const view = new Float64Array(buffer);
      for (const [call, masked] of [
        [() => impl.unmask(view, KEY), true],
        [() => impl.unmask(new DataView(buffer), KEY), false],
        [() => impl.mask(view, KEY, view, 0, SIZE), true],
        [() => impl.mask(view, KEY, view, 0, SIZE), false],
      ]) {
        call();
        check(buffer, masked);
      }
    });

    await t.test('offset past 2^32: writes land there, not at offset mod 2^32', () => {
      const source = new Uint8Array(200).map((_, i) => i);
      impl.mask(source, KEY, new DataView(buffer), FOUR_GIB - 100, 200);
      const window = new Uint8Array(buffer, FOUR_GIB - 100, 200);
      assert.deepStrictEqual(window, reference.masked(source, KEY), 'the 200 bytes from 2^32 - 100');
      assert.deepStrictEqual(new Uint8Array(buffer, 0, 64), pattern(0, 64, false), 'bytes at offset mod 2^32 untouched');
      window.set(pattern(FOUR_GIB - 100, FOUR_GIB + 100, false)); // the pattern back, for the next subtest
    });

    await t.test('offset + length past the end by one byte, offset > 2^32: RangeError, nothing written', () => {
      const call = () => impl.mask(new Uint8Array(65), KEY, new DataView(buffer), SIZE - 64, 65);
      assert.throws(call, { code: 'ERR_OUT_OF_RANGE' });
      check(buffer, false);
    });

    await t.test('distinct: a > 4 GiB source into a second > 4 GiB buffer at offset 3', () => {
      const output = new ArrayBuffer(SIZE + 3);
      impl.mask(new Float64Array(buffer), KEY, new DataView(output), 3, SIZE);
      check(output, true, 3);
    });
  });
}
