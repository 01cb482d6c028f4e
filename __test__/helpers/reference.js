'use strict';

// The oracle: the forward byte loop of RFC 6455 §5.3, over the bytes a view really covers. The view's
// geometry is read through the intrinsic getters, never its own (possibly spoofed) properties.

const assert = require('node:assert');
const { isDataView, isTypedArray } = require('node:util').types;

// Captured at load, like the implementations': some cases patch globals for the length of a call.
const Bytes = Uint8Array;
const { isArray, from } = Array;

const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const getter = (prototype, name) => Object.getOwnPropertyDescriptor(prototype, name).get;
const typedArrayGeometry = ['buffer', 'byteOffset', 'byteLength'].map((name) => getter(typedArrayPrototype, name));
const dataViewGeometry = ['buffer', 'byteOffset', 'byteLength'].map((name) => getter(DataView.prototype, name));

/** A Uint8Array over exactly the bytes of `view` now; empty when detached or out of bounds. */
function bytesOf(view) {
  const geometry = isTypedArray(view) ? typedArrayGeometry : isDataView(view) ? dataViewGeometry : null;
  if (geometry === null) throw new TypeError('not an ArrayBufferView');
  try {
    const [buffer, byteOffset, byteLength] = geometry.map((get) => get.call(view));
    return new Bytes(buffer, byteOffset, byteLength);
  } catch {
    return new Bytes(0); // detached, or a DataView out of bounds of its shrunk buffer
  }
}

/** The 4 key bytes, reading an array key's elements once each, in order (as the implementations do). */
function keyOf(key) {
  if (isArray(key)) return [key[0], key[1], key[2], key[3]];
  if (typeof key === 'number') return [0, 8, 16, 24].map((shift) => (key >>> shift) & 0xff); // a block's key word
  return from(bytesOf(key).subarray(0, 4));
}

function mask(source, key, output, offset, length) {
  const k = keyOf(key);
  const src = bytesOf(source);
  const out = bytesOf(output);
  for (let i = 0; i < length; i++) out[offset + i] = src[i] ^ k[i & 3];
}

function unmask(buffer, key) {
  const k = keyOf(key);
  const bytes = bytesOf(buffer);
  for (let i = 0; i < bytes.length; i++) bytes[i] ^= k[i & 3];
}

/** A Uint8Array copy of the bytes `output` holds, with `length` bytes of `source` masked by `key` at `offset`; by default, all of `source`. */
function masked(source, key, output = new Bytes(source.length), offset = 0, length = source.length) {
  const expected = new Bytes(output);
  mask(source, key, expected, offset, length);
  return expected;
}

/** Fails at the first byte where `actual` differs from `expected`. */
function assertBytes(actual, expected, message) {
  if (Buffer.compare(actual, expected) === 0) return;
  const at = actual.findIndex((byte, i) => byte !== expected[i]);
  assert.fail(`${message}: first difference at byte ${at} (${actual[at]} != ${expected[at]})`);
}

module.exports = { assertBytes, keyOf, mask, masked, unmask };
