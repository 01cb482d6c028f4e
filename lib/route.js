'use strict';

// The one routing of every tier, read top to bottom:
//   1. short payloads, plain arguments -> the JavaScript byte loop (element stores through the caller's views)
//   2. what the kernel takes           -> the kernel: the addon straight from numbers and a byte key (it checks
//                                         the views and refuses what does not fit, writing nothing); a
//                                         kernel of byte views only for plain arguments
//   3. anything else                   -> checked in full by lib/checks.js, then the kernel, or the error
// Only a call shown writable takes 1 or 2: immutable outputs are refused on every path.

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

/** No short-payload sizes: every call goes to the tier's kernel. */
const NO_SHORT = { mask: 0, unmask: 0 };

/**
 * A tier's `{ mask, unmask, backend }` over its kernel's `mask(source, output, offset, length, word)` and
 * `unmask(buffer, word)` (the key as one word, its first byte low). `views`: the kernel takes any views and
 * checks their bounds itself (the addon); else real Uint8Arrays with checked arguments. Payloads below
 * `from`'s sizes stay in JavaScript.
 */
function route({ backend, from = NO_SHORT, views, mask: maskWith, unmask: unmaskWith }) {
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

  /**
   * Checked in full, in order: the source, then the key, whose Array getters may resize the views; plain
   * views after that (undici's Array keys) need nothing more. Apart, so that the engine inlines `mask`.
   */
  function checkMask(source, key, output, offset, length) {
    const word = checkedKey(source, 'source', key);
    if (arePlainViews(source, output, offset, length) && writable(output, offset, length)) {
      checked(source, output, offset, length, word, source, output);
      return;
    }
    // Any value's bytes, made without running user code (none for a value that is no view).
    const src = toBytes(source);
    const out = toBytes(output);
    checkOutput(output, offset, length, src, out);
    checked(source, output, offset, length, word, src, out);
  }

  /** `buffer[i] ^= mask[i & 3]`, in place. */
  function unmask(buffer, mask) {
    // `unmask` writes every byte: byte 0, where there is one, is one it writes.
    const bytes = isUint8Array(buffer);
    if (bytes && unmaskFrom > 0 && buffer[unmaskFrom - 1] === undefined && isByteKey(mask) && writable(buffer, 0, 1)) {
      xorShortInPlace(buffer, unmaskFrom, mask[0], mask[1], mask[2], mask[3]);
    } else if (bytes && isByteKey(mask) && writable(buffer, 0, 1)) {
      // The addon never refuses a real Uint8Array; a kernel of byte views takes it as it is.
      unmaskWith(buffer, wordOf(mask[0], mask[1], mask[2], mask[3]));
    } else {
      checkUnmask(buffer, mask);
    }
  }

  /** Checked in full, in order: the buffer, the key, then whether the buffer may be written. */
  function checkUnmask(buffer, key) {
    const word = checkedKey(buffer, 'buffer', key);
    const bytes = toBytes(buffer);
    const length = typedArrayLength(bytes);
    checkWritable(buffer, 0, length, 'buffer');
    checked(buffer, buffer, 0, length, word, bytes, bytes);
  }

  /**
   * The addon's fast path: numbers and a byte key go straight to it; what it refuses is checked in full.
   * Where buffers may be immutable (the addon cannot tell), the probe writes output[offset], so it runs
   * only once element reads show the addon takes the call. In place from offset 0 (how ws masks) is an
   * unmask: one view to look up, not two.
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

  /**
   * The kernel on arguments lib/checks.js has checked (`src`, `out`: Uint8Arrays of the caller's views).
   * The addon takes the caller's own views and checks them again; short payloads between real
   * Uint8Arrays stay in the JavaScript loop.
   */
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
