'use strict';

// The pure-JavaScript implementation: the same checks, errors and results as the native addon.

const {
  Bytes,
  checkedMask,
  checkedUnmask,
  isPlainMask,
  isPlainUnmask,
  mayOverlapForward,
  refusingImmutable,
  typedArrayBuffer,
  typedArrayByteOffset,
  typedArrayLength,
} = require('./checks');
const { backendFrom } = require('./thresholds');

const WORDS_FROM = 1024;
const Words = Int32Array;

// A 4-byte scratch word: the key as a machine word in this platform's byte order.
const keyBytes = new Bytes(4);
const keyWord = new Words(keyBytes.buffer);

/**
 * Masks `length` bytes of `source` into `output` at `offset`:
 * `output[offset + i] = source[i] ^ mask[i & 3]`.
 *
 * @param {ArrayBufferView} source The bytes to mask
 * @param {ArrayBufferView | number[]} mask The 4-byte key: the first 4 bytes of a view, or 4 integers
 * @param {ArrayBufferView} output Where the masked bytes go (may be `source` itself)
 * @param {number} offset Where in `output` to start writing, in bytes
 * @param {number} length How many bytes to mask
 * @returns {undefined}
 * @public
 */
function mask(source, mask, output, offset, length) {
  if (isPlainMask(source, mask, output, offset, length)) {
    xorKey(source, output, offset, length, mask[0], mask[1], mask[2], mask[3]);
  } else {
    // Views of other kinds, array keys, and everything it must reject.
    checkedMask(source, mask, output, offset, length, xorKey);
  }
}

/**
 * Unmasks `buffer` in place: `buffer[i] ^= mask[i & 3]`.
 *
 * @param {ArrayBufferView} buffer The bytes to unmask
 * @param {ArrayBufferView | number[]} mask The 4-byte key: the first 4 bytes of a view, or 4 integers
 * @returns {undefined}
 * @public
 */
function unmask(buffer, mask) {
  if (isPlainUnmask(buffer, mask)) {
    xorInPlace(buffer, mask[0], mask[1], mask[2], mask[3]);
    return;
  }
  checkedUnmask(buffer, mask, xorKey);
}

// JavaScriptCore charges ~40 ns for each call of the length accessor (a 16 B unmask on Bun took 5x ws's
// plain loop with it), so there short payloads run to the view's end instead; V8 inlines the accessor,
// and its loop over a known length is the faster one (48-64 B: 0.85x with the probing loop, Node 26).
const PROBE_TO_END = typeof Bun !== 'undefined';

/** `bytes[i] ^= key[i & 3]` over a whole real Uint8Array, by the loop this engine runs best. */
function xorInPlace(bytes, k0, k1, k2, k3) {
  if (PROBE_TO_END && bytes[WORDS_FROM - 1] === undefined) xorToEnd(bytes, k0, k1, k2, k3);
  else xorKey(bytes, bytes, 0, typedArrayLength(bytes), k0, k1, k2, k3);
}

/**
 * `bytes[i] ^= key[i & 3]` up to the end of a real Uint8Array, found by reading past it (where it reads
 * undefined) rather than by its length accessor. One probe per 16 bytes: with one per 4 the probes were a
 * fifth of the loads, and 128-200 B ran 1.25-1.35x slower on Bun 1.4 (the same at 16-32 B).
 */
function xorToEnd(bytes, k0, k1, k2, k3) {
  let i = 0;
  for (; bytes[i + 15] !== undefined; i += 16) {
    bytes[i] ^= k0;
    bytes[i + 1] ^= k1;
    bytes[i + 2] ^= k2;
    bytes[i + 3] ^= k3;
    bytes[i + 4] ^= k0;
    bytes[i + 5] ^= k1;
    bytes[i + 6] ^= k2;
    bytes[i + 7] ^= k3;
    bytes[i + 8] ^= k0;
    bytes[i + 9] ^= k1;
    bytes[i + 10] ^= k2;
    bytes[i + 11] ^= k3;
    bytes[i + 12] ^= k0;
    bytes[i + 13] ^= k1;
    bytes[i + 14] ^= k2;
    bytes[i + 15] ^= k3;
  }
  for (; bytes[i + 3] !== undefined; i += 4) {
    bytes[i] ^= k0;
    bytes[i + 1] ^= k1;
    bytes[i + 2] ^= k2;
    bytes[i + 3] ^= k3;
  }
  if (bytes[i] === undefined) return;
  bytes[i] ^= k0;
  if (bytes[i + 1] === undefined) return;
  bytes[i + 1] ^= k1;
  if (bytes[i + 2] !== undefined) bytes[i + 2] ^= k2;
}

/**
 * `out[offset + i] = src[i] ^ key[i & 3]`, exactly as the forward byte loop computes it.
 */
function xorKey(src, out, offset, length, k0, k1, k2, k3) {
  let i = 0;
  if (length >= WORDS_FROM) i = xorWords(src, out, offset, length, k0, k1, k2, k3);
  const end = length - 3;
  for (; i < end; i += 4) {
    out[offset + i] = src[i] ^ k0;
    out[offset + i + 1] = src[i + 1] ^ k1;
    out[offset + i + 2] = src[i + 2] ^ k2;
    out[offset + i + 3] = src[i + 3] ^ k3;
  }
  if (i < length) {
    out[offset + i] = src[i] ^ k0;
    if (i + 1 < length) {
      out[offset + i + 1] = src[i + 1] ^ k1;
      if (i + 2 < length) out[offset + i + 2] = src[i + 2] ^ k2;
    }
  }
}

/**
 * The leading whole 32-bit words of `xorKey`'s job, where both sides are 4-byte aligned and the layout is
 * not the one where the forward loop reads its own output; returns how many bytes it did (0 or a multiple
 * of 4). Worth its two views from 1 KiB on.
 */
function xorWords(src, out, offset, length, k0, k1, k2, k3) {
  const srcAt = typedArrayByteOffset(src);
  const outAt = typedArrayByteOffset(out) + offset;
  if ((srcAt | outAt) & 3 || mayOverlapForward(src, out, offset, length)) return 0;
  keyBytes[0] = k0;
  keyBytes[1] = k1;
  keyBytes[2] = k2;
  keyBytes[3] = k3;
  const word = keyWord[0];
  const words = (length - (length % 4)) / 4;
  const srcWords = new Words(typedArrayBuffer(src), srcAt, words);
  const outWords = new Words(typedArrayBuffer(out), outAt, words);
  for (let i = 0; i < words; i++) outWords[i] = srcWords[i] ^ word;
  return words * 4;
}

// `xorInPlace` is for index.js's short in-place calls, whose arguments it has checked itself.
module.exports = { ...refusingImmutable({ mask, unmask, backend: 'js', backendFrom: backendFrom('js') }), xorInPlace };
