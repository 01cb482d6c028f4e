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
    xorKey(buffer, buffer, 0, typedArrayLength(buffer), mask[0], mask[1], mask[2], mask[3]);
    return;
  }
  checkedUnmask(buffer, mask, xorKey);
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

module.exports = refusingImmutable({ mask, unmask, backend: 'js' });
