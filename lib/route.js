'use strict';

// The one routing of every tier, top to bottom: short plain calls take the JavaScript loop; what the kernel
// takes goes to it; the rest is checked in full by lib/checks.js. A fast path runs only once the output is shown writable.

const { checkedKey, checkOutput, checkWritable } = require('./checks');
const { xorKey, xorKeyWord, xorShortInPlace } = require('./loops');
const {
  MAY_BE_IMMUTABLE,
  arePlainViews,
  hasExactly,
  isByteKey,
  isPlainMask,
  isUint8Array,
  toBytes,
  typedArrayLength,
  wordOf,
  writable,
} = require('./views');

/**
 * A tier's `{ mask, unmask, backend }` over a kernel's `mask(source, output, offset, length, word)` and
 * `unmask(buffer, word)`. `views`: the kernel checks any views itself (the addon), else it takes checked
 * Uint8Arrays. Payloads below `from`'s sizes stay in JavaScript.
 */
function route({ backend, from = { mask: 0, unmask: 0 }, views, mask: maskWith, unmask: unmaskWith }) {
  const { mask: maskFrom, unmask: unmaskFrom } = from;

  /** `output[offset + i] = source[i] ^ mask[i & 3]` for `i < length`; the key a view or 4 integers (index.d.ts). */
  function mask(source, mask, output, offset, length) {
    if (
      typeof length === 'number' &&
      length < maskFrom &&
      isPlainMask(source, mask, output, offset, length) &&
      writable(output, offset, length)
    ) {
      xorKey(source, output, offset, length, mask[0], mask[1], mask[2], mask[3]);
    } else if (!(views ? addonMask(source, mask, output, offset, length) : bytesMask(source, mask, output, offset, length))) {
      checkMask(source, mask, output, offset, length);
    }
  }

  /** Checked in full, in argument order (an Array key's getters may resize the views). Apart, so that `mask` inlines. */
  function checkMask(source, key, output, offset, length) {
    const word = checkedKey(source, 'source', key);
    if (arePlainViews(source, output, offset, length) && writable(output, offset, length)) {
      checked(source, output, offset, length, word, source, output);
      return;
    }
    const src = toBytes(source);
    const out = toBytes(output);
    checkOutput(output, offset, length, src, out);
    checked(source, output, offset, length, word, src, out);
  }

  /** `buffer[i] ^= mask[i & 3]`, in place. */
  function unmask(buffer, mask) {
    const bytes = isUint8Array(buffer);
    if (bytes && unmaskFrom > 0 && buffer[unmaskFrom - 1] === undefined && isByteKey(mask) && writable(buffer, 0, 1)) {
      xorShortInPlace(buffer, unmaskFrom, mask[0], mask[1], mask[2], mask[3]);
    } else if (bytes && isByteKey(mask) && writable(buffer, 0, 1)) {
      unmaskWith(buffer, wordOf(mask[0], mask[1], mask[2], mask[3]));
    } else {
      checkUnmask(buffer, mask);
    }
  }

  /** Checked in full: the buffer, the key, then whether the buffer may be written. */
  function checkUnmask(buffer, key) {
    const word = checkedKey(buffer, 'buffer', key);
    const bytes = toBytes(buffer);
    const length = typedArrayLength(bytes);
    checkWritable(buffer, 0, length, 'buffer');
    checked(buffer, buffer, 0, length, word, bytes, bytes);
  }

  /**
   * The addon's fast path: numbers and a byte key straight to it. Where buffers may be immutable (the addon
   * cannot tell), element reads first show it takes the call, then the probe writes output[offset]. In place
   * from 0 (how ws masks) is an unmask: one view to look up.
   */
  function addonMask(source, key, output, offset, length) {
    if (typeof offset !== 'number' || typeof length !== 'number' || !isByteKey(key)) return false;
    if (
      MAY_BE_IMMUTABLE &&
      !(
        isUint8Array(output) &&
        output[offset + length - 1] !== undefined &&
        (source === output || (isUint8Array(source) && source[length - 1] !== undefined)) &&
        writable(output, offset, length)
      )
    ) {
      return false;
    }
    const inPlace = source === output && offset === 0 && (MAY_BE_IMMUTABLE || isUint8Array(output));
    const word = wordOf(key[0], key[1], key[2], key[3]);
    try {
      if (inPlace && hasExactly(source, length)) unmaskWith(source, word);
      else maskWith(source, output, offset, length, word);
    } catch {
      return false;
    }
    return true;
  }

  /** A kernel of byte views takes plain arguments only. */
  function bytesMask(source, key, output, offset, length) {
    if (!(isPlainMask(source, key, output, offset, length) && writable(output, offset, length))) return false;
    maskWith(source, output, offset, length, wordOf(key[0], key[1], key[2], key[3]));
    return true;
  }

  /** The kernel on checked arguments (`src`, `out`: Uint8Arrays of the caller's views); the addon gets the views. */
  function checked(source, output, offset, length, word, src, out) {
    if (!views) {
      maskWith(src, out, offset, length, word);
      return;
    }
    const inPlace = source === output && offset === 0;
    if (src === source && out === output && length < (inPlace ? unmaskFrom : maskFrom)) {
      xorKeyWord(source, output, offset, length, word);
    } else if (inPlace && src === source && hasExactly(source, length)) {
      unmaskWith(source, word);
    } else {
      maskWith(source, output, offset, length, word);
    }
  }

  return { mask, unmask, backend };
}

/** A tier module's `{ backend, tier(from) }` over a kernel of byte views, `xor(src, out, offset, length, word)`. */
function bytesTier(backend, xor) {
  const unmask = (bytes, word) => xor(bytes, bytes, 0, typedArrayLength(bytes), word);
  return { backend, tier: (from) => route({ backend, from, views: false, mask: xor, unmask }) };
}

module.exports = { route, bytesTier };
