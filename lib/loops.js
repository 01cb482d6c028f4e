'use strict';

// The JavaScript loops over real Uint8Arrays with checked arguments, each exactly the forward byte loop.

const { Bytes, typedArrayBuffer, typedArrayByteOffset, typedArrayLength } = require('./views');

const WORDS_FROM = 1024;
const Words = Int32Array;

// The key as a machine word in this platform's byte order.
const keyBytes = new Bytes(4);
const keyAsWord = new Words(keyBytes.buffer);

// JavaScriptCore charges much more than V8 for the length accessor: there a short in-place payload's length is
// found by reading past the view's end.
const PROBE_LENGTH = typeof Bun !== 'undefined';

/** `bytes[i] ^= key[i & 3]` over a whole real Uint8Array shorter than `limit`, by element stores only. */
function xorShortInPlace(bytes, limit, k0, k1, k2, k3) {
  let length = 0;
  if (PROBE_LENGTH) {
    while (bytes[length + 15] !== undefined) length += 16;
    while (bytes[length + 3] !== undefined) length += 4;
    while (bytes[length] !== undefined) length++;
  } else {
    length = typedArrayLength(bytes);
  }
  xorKey(bytes, bytes, 0, length < limit ? length : limit, k0, k1, k2, k3);
}

/** `out[offset + i] = src[i] ^ key[i & 3]`: 32-bit words from WORDS_FROM bytes where exact, then bytes. Below that,
 * only element stores, which the engine drops past a view's end. One loop for every caller (JavaScriptCore runs a
 * loop reached from several functions at half the speed). */
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

/** `xorKey`'s leading words where both sides are aligned and the loop reads none of its output; the bytes done. */
function xorWords(src, out, offset, length, k0, k1, k2, k3) {
  const srcAt = typedArrayByteOffset(src);
  const outAt = typedArrayByteOffset(out) + offset;
  if ((srcAt | outAt) & 3 || mayOverlapForward(src, out, offset, length)) return 0;
  keyBytes[0] = k0;
  keyBytes[1] = k1;
  keyBytes[2] = k2;
  keyBytes[3] = k3;
  const word = keyAsWord[0];
  const words = (length - (length % 4)) / 4;
  const srcWords = new Words(typedArrayBuffer(src), srcAt, words);
  const outWords = new Words(typedArrayBuffer(out), outAt, words);
  for (let i = 0; i < words; i++) outWords[i] = srcWords[i] ^ word;
  return words * 4;
}

/** Whether the output starts inside the source past its start, where the forward loop reads bytes it wrote. Within
 * 0 < gap < length the memory is asked: a byte written to `out[offset]`, then put back, shows at `src[gap]` exactly
 * when both are one memory (one ArrayBuffer, or SharedArrayBuffers over one). */
function mayOverlapForward(src, out, offset, length) {
  // The element reads first: once they have checked the views' maps, V8 inlines the byteOffset accessors.
  const saved = out[offset];
  if (src[0] === undefined) return false;
  const gap = typedArrayByteOffset(out) + offset - typedArrayByteOffset(src);
  if (!(gap > 0 && gap < length)) return false;
  const mark = src[gap] ^ 1;
  out[offset] = mark;
  const same = src[gap] === mark;
  out[offset] = saved;
  return same;
}

/** `xorKey` with the key as one word, as the kernels take it. */
function xorKeyWord(src, out, offset, length, word) {
  xorKey(src, out, offset, length, word & 0xff, (word >>> 8) & 0xff, (word >>> 16) & 0xff, word >>> 24);
}

module.exports = { xorKey, xorKeyWord, xorShortInPlace, mayOverlapForward, WORDS_FROM };
