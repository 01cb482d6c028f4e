'use strict';

// Error text names the number it refused exactly as JavaScript's `String(n)` prints it, on every tier
// (issue 15.6: the addon printed the other neighbour of an exact tie, `91880792.23632813` for
// `91880792.23632812`, in 26 of 30,000 random cases).

const { test } = require('node:test');
const assert = require('node:assert');
const native = require('../lib/native');
const fallback = require('../lib/fallback');

/** Doubles of every magnitude and digit count, from a fixed seed; and the ties the audit found. */
function numbers(count) {
  let seed = 0x9e3779b9;
  const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
  const view = new DataView(new ArrayBuffer(8));
  const out = [91880792.23632812, 0.1 + 0.2, 5e-324, 1.7976931348623157e308, 1e21, 1e-7, 123456789012345680000];
  while (out.length < count) {
    const kind = next() % 3;
    if (kind === 0) {
      view.setUint32(0, next());
      view.setUint32(4, next());
      const n = view.getFloat64(0);
      if (Number.isFinite(n)) out.push(n);
    } else if (kind === 1) {
      out.push((next() / 2 ** 32) * 10 ** ((next() % 40) - 10));
    } else {
      out.push(next() * 2 ** 20 + (next() % 1000) / 1000 + 0.5);
    }
  }
  return out;
}

test('a refused offset is printed as String(n), natively and in JavaScript, for 30,000 doubles', () => {
  const source = new Uint8Array(8);
  const output = new Uint8Array(8);
  const key = new Uint8Array(4);
  const wrong = [];
  for (const n of numbers(30000)) {
    const offset = Number.isInteger(n) && n >= 0 && n <= 8 ? n + 0.5 : n;
    const words = [native, fallback].map(({ mask }) => {
      try {
        mask(source, key, output, offset, 8);
        return 'no error';
      } catch (error) {
        return error.message;
      }
    });
    const expected = `Received ${String(offset)}`;
    if (!words.every((message) => message.endsWith(expected))) wrong.push({ offset, words });
  }
  assert.deepStrictEqual(wrong.slice(0, 5), []);
});
