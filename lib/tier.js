'use strict';

// The one routing every tier shares, as ws's buffer-util routes:
//   short payloads, plain arguments  -> the JavaScript byte loop (element stores through the caller's views)
//   what the tier's fast path takes  -> its kernel
//   anything else                    -> checked in full by lib/checks.js: the kernel, or the error
// Immutable outputs are refused on every path: the short and fast paths leave them to the checked one.

const { checkedMask, checkedUnmask, isByteKey, isPlainMask, isUint8Array, typedArrayLength, writable } = require('./checks');
const { xorKey, xorKeyWord, xorShortInPlace } = require('./loops');
const { backendFrom } = require('./thresholds');

/** No short-payload sizes: every call goes to the tier's own paths. */
const NO_SHORT = { mask: 0, unmask: 0 };

/**
 * A tier, `{ mask, unmask, backend, backendFrom }`: payloads below `from`'s sizes in JavaScript;
 * `fastMask(source, key, output, offset, length)` and `fastUnmask(buffer, key, bytes)` (`bytes`: whether
 * `buffer` is a real Uint8Array) mask a call they take and return true, or write nothing and return false;
 * `checkedXor(source, output, offset, length, keyWord, src, out)` is the kernel on arguments lib/checks.js
 * has checked (`src`, `out`: byte views of the caller's views).
 */
function tier({ backend, from = NO_SHORT, fastMask, fastUnmask, checkedXor }) {
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
    } else if (!fastMask(source, mask, output, offset, length)) {
      checkedMask(source, mask, output, offset, length, checkedXor);
    }
  }

  /** `buffer[i] ^= mask[i & 3]`, in place. */
  function unmask(buffer, mask) {
    const bytes = isUint8Array(buffer);
    if (bytes && unmaskFrom > 0 && buffer[unmaskFrom - 1] === undefined && isByteKey(mask) && writable(buffer, 0, 1)) {
      xorShortInPlace(buffer, unmaskFrom, mask[0], mask[1], mask[2], mask[3]);
    } else if (!fastUnmask(buffer, mask, bytes)) {
      checkedUnmask(buffer, mask, checkedXor);
    }
  }

  return { mask, unmask, backend, backendFrom: backendFrom(backend, from) };
}

/**
 * A tier over a kernel of byte views, `xor(src, out, offset, length, k0, k1, k2, k3)` on real Uint8Arrays
 * whose arguments are checked (lib/fallback.js, lib/wasm.js): plain calls go straight to it.
 */
function bytesTier({ backend, from, xor }) {
  return tier({
    backend,
    from,
    fastMask(source, key, output, offset, length) {
      if (!(isPlainMask(source, key, output, offset, length) && writable(output, offset, length))) return false;
      xor(source, output, offset, length, key[0], key[1], key[2], key[3]);
      return true;
    },
    fastUnmask(buffer, key, bytes) {
      if (!(bytes && isByteKey(key) && writable(buffer, 0, 1))) return false;
      xor(buffer, buffer, 0, typedArrayLength(buffer), key[0], key[1], key[2], key[3]);
      return true;
    },
    checkedXor(_source, _output, offset, length, word, src, out) {
      xorKeyWord(src, out, offset, length, word, xor);
    },
  });
}

module.exports = { tier, bytesTier, NO_SHORT };
