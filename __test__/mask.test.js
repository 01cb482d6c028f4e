'use strict';

// The conformance suite, run against every implementation of helpers/implementations.js (overlaps: differential.test.js).

const assert = require('node:assert');
const crypto = require('node:crypto');
const { describe, it } = require('node:test');

const { NAMES, load } = require('./helpers/implementations');
const { expectedNativeLevel } = require('../scripts/smoke');
const { assertBytes, masked, mask: referenceMask } = require('./helpers/reference');

const KEY = Buffer.from('482ace24', 'hex');
const GUARD = 16;
const VIEWS = 'Buffer, TypedArray, or DataView';
const KEYS = 'Buffer, TypedArray, DataView, or an Array of 4 integers';
const LENGTHS = [...Array(261).keys(), 1023, 1024, 1025, 65535, 65536, 65537];
const OUTPUT_OFFSETS = [0, 1, 2, 6, 8, 10, 14];

const randomBytes = (length) => new Uint8Array(crypto.randomBytes(length));
/** A Buffer of `length` bytes at `byteOffset` of its own ArrayBuffer, with random guard bytes around. */
const viewAt = (byteOffset, length) => Buffer.from(randomBytes(byteOffset + length + GUARD).buffer, byteOffset, length);
/** The whole ArrayBuffer behind `view`, as bytes: guards included. */
const whole = (view) => new Uint8Array(view.buffer.slice(0));

const implementations = NAMES.map((name) => [name, load(name)]);
for (const [name, implementation] of implementations) describe(name, () => use(implementation, name));

function use(impl, name) {
  it('reports its backend', (t) => {
    // The native level expected is worked out from the CPU's own flags, not from what the addon says;
    // under BUFFERUTIL_SIMD_LEVEL=wasm or js, index.js reports that tier.
    const { requested } = require('../lib/level');
    const portable = requested === 'js' || requested === 'wasm';
    const native = expectedNativeLevel();
    const expected = { native, fallback: 'js', wasm: 'wasm', 'wasm-every-size': 'wasm', index: portable ? requested : native };
    if (expected[name] === undefined) return t.skip("this CPU's features cannot be read here");
    assert.strictEqual(impl.backend, expected[name]);
  });

  it("masks bufferutil's vectors and returns undefined", () => {
    const source = Buffer.from('6c3c58d93e21099f', 'hex');
    const output = Buffer.alloc(8);
    assert.strictEqual(impl.mask(source, KEY, output, 0, 8), undefined);
    assert.strictEqual(output.toString('hex'), '241696fd760bc7bb');
    const framed = Buffer.alloc(14);
    impl.mask(source, KEY, framed, 6, 8);
    assert.strictEqual(framed.toString('hex'), '000000000000241696fd760bc7bb');
    assert.strictEqual(impl.unmask(output, KEY), undefined);
    assert.strictEqual(output.toString('hex'), '6c3c58d93e21099f');
  });

  it('masks into distinct buffers and in place, unmasks: every length × byteOffset 0..15 (× output offset), guards intact', () => {
    for (const length of LENGTHS) {
      const key = randomBytes(4);
      for (let at = 0; at < 16; at++) {
        const source = viewAt(at, length);
        const before = whole(source);
        for (const offset of OUTPUT_OFFSETS) {
          const output = viewAt(GUARD, offset + length);
          const expected = whole(output);
          referenceMask(source, key, expected.subarray(GUARD), offset, length);
          impl.mask(source, key, output, offset, length);
          assertBytes(whole(output), expected, `length ${length} source+${at} offset ${offset}`);
        }
        assertBytes(whole(source), before, `source changed: length ${length} +${at}`);
        referenceMask(before.subarray(at), key, before.subarray(at), 0, length);
        const copy = Buffer.from(whole(source).buffer, at, length);
        impl.mask(source, key, source, 0, length);
        assertBytes(whole(source), before, `mask in place length ${length} +${at}`);
        impl.unmask(copy, key);
        assertBytes(whole(copy), before, `unmask length ${length} +${at}`);
      }
    }
  });

  it('reads the key once, before any byte is written, even where the key lies in the output', () => {
    // A literal loop re-reads mask[i & 3] every byte and so picks up bytes it has just written; every
    // implementation here reads the 4 key bytes first, as a SIMD kernel must (README, "Overlap").
    for (const length of [4, 8, 13, 40, 64, 100, 200, 1000]) {
      for (const keyAt of [0, 2, 4]) {
        const buffer = Buffer.from(randomBytes(length + 8));
        const key = buffer.subarray(keyAt, keyAt + 4);
        const expected = masked(buffer, Buffer.from(key), buffer, 0, length);
        impl.mask(buffer, key, buffer, 0, length);
        assertBytes(buffer, expected, `mask in place, ${length} B, key at ${keyAt}`);

        const source = randomBytes(length);
        const output = Buffer.from(randomBytes(length + 8));
        const outputKey = output.subarray(keyAt + 2, keyAt + 6);
        const expectedOutput = masked(source, Buffer.from(outputKey), output, 2, length);
        impl.mask(source, outputKey, output, 2, length);
        assertBytes(output, expectedOutput, `mask into the key's buffer, ${length} B, key at ${keyAt + 2}`);

        const own = Buffer.from(randomBytes(length));
        const expectedOwn = masked(own, Buffer.from(own.subarray(0, 4)));
        impl.unmask(own, own.subarray(0, 4));
        assertBytes(own, expectedOwn, `unmask with its own first 4 bytes, ${length} B`);
      }
    }
  });

  it("refuses with Node's code and says what is wrong: the bound that was broken, the kind of object received", () => {
    // Every other refusal, with nothing written, is a row of the hostile matrix (hostile.test.js).
    const detached = new Uint8Array(8);
    structuredClone(detached.buffer, { transfer: [detached.buffer] });
    // Node's own words for a number out of range, an argument of the wrong type and a short key, each with its code.
    const range = (arg, bound, got) => `The value of "${arg}" is out of range. It must be ${bound}. Received ${got}`;
    const type = (arg, got, kinds = VIEWS) =>
      `The "${arg}" argument must be an instance of ${kinds}. Received an instance of ${got}`;
    const short = (words) => `The "mask" ${words}`;
    const CODES = { range: 'ERR_OUT_OF_RANGE', type: 'ERR_INVALID_ARG_TYPE', short: 'ERR_INVALID_ARG_VALUE' };
    for (const [fn, args, say, ...words] of [
      ['mask', [randomBytes(8), KEY, detached, 0, 4], range, 'length', '>= 0 && <= output.byteLength (0)', 4],
      ['mask', [detached, KEY, Buffer.alloc(8), 0, 1], range, 'length', '>= 0 && <= source.byteLength (0)', 1],
      ['mask', [randomBytes(64), KEY, Buffer.alloc(16), 0, 20], range, 'length', '>= 0 && <= output.byteLength (16)', 20],
      ['mask', [randomBytes(8), KEY, Buffer.alloc(16), 0, 20], range, 'length', '>= 0 && <= source.byteLength (8)', 20],
      ['mask', [randomBytes(8), KEY, Buffer.alloc(16), 9, 8], range, 'offset', '>= 0 && <= output.byteLength - length (8)', 9],
      ['mask', [randomBytes(8), KEY, Buffer.alloc(8), 0, 1e300], range, 'length', '>= 0 && <= source.byteLength (8)', '1e+300'],
      ['mask', [randomBytes(8), KEY, Buffer.alloc(16), -1, 4], range, 'offset', '>= 0 && <= output.byteLength - length (12)', -1],
      ['mask', [randomBytes(8), KEY, Buffer.alloc(16), 0, -3], range, 'length', '>= 0 && <= source.byteLength (8)', -3],
      ['mask', [randomBytes(8), KEY, Buffer.alloc(16), 1.5, 4], range, 'offset', 'an integer', 1.5],
      ['mask', [new ArrayBuffer(8), KEY, Buffer.alloc(8), 0, 8], type, 'source', 'ArrayBuffer'],
      ['mask', [randomBytes(8), KEY, [0, 0, 0, 0, 0, 0, 0, 0], 0, 8], type, 'output', 'Array'],
      ['unmask', [randomBytes(8), new ArrayBuffer(4)], type, 'mask', 'ArrayBuffer', KEYS],
      ['unmask', [{}, KEY], type, 'buffer', 'another type'],
      ['unmask', [randomBytes(8), Buffer.alloc(3)], short, 'argument must be at least 4 bytes long. Received 3 bytes'],
      ['unmask', [randomBytes(8), detached], short, 'argument must be at least 4 bytes long. Received 0 bytes'],
      ['unmask', [randomBytes(8), [1, 2, 3]], short, 'array must have 4 elements. Received 3'],
    ]) {
      assert.throws(() => impl[fn](...args), { code: CODES[say.name], message: say(...words) });
    }
  });
}
