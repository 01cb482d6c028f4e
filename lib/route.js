'use strict';

// Every tier's routing: short plain calls to the JavaScript loop, what the kernel takes to it, the rest to lib/checks.js; a
// fast path once the output is shown writable. Only the entries close over their tier (V8 inlines them); the rest takes its kernel.

const { checkView, toKeyWord, checkOutput, checkWritable } = require('./checks');
const { xorKey, xorKeyWord, xorShortInPlace } = require('./loops');
const views = require('./views');
const { MAY_BE_IMMUTABLE, hasExactly, isByteKey, isPlainMask, isUint8Array, toBytes, typedArrayLength, wordOf, writable } = views;

// Any byte key, to ask `isPlainMask` of the views alone (one flat predicate: split, short calls run slower).
const ANY_KEY = new Uint8Array(4);
// A tier's sizes where `from` is not given (the kernel at every size).
const EVERY_SIZE = { mask: 0, unmask: 0 };

/** The tier over the addon's `maskWith(source, output, offset, length, word)` and `unmaskWith(buffer, word)`, which
 * take any views; payloads below `from`'s sizes stay in JavaScript, a mask in place from 0 below the unmask's (the
 * addon takes it as an unmask). */
function routeAddon(backend, from, maskWith, unmaskWith) {
  if (from === undefined) from = EVERY_SIZE;
  const kernel = { takesBytes: false, maskFrom: from.mask, unmaskFrom: from.unmask, mask: maskWith, unmask: unmaskWith };
  const { maskFrom, unmaskFrom } = kernel;
  return {
    /** `output[offset + i] = source[i] ^ key[i & 3]` for `i < length`; the key a view or 4 integers (index.d.ts). */
    mask(source, key, output, offset, length) {
      if (
        typeof length === 'number' &&
        length < (source === output && offset === 0 ? unmaskFrom : maskFrom) &&
        isPlainMask(source, key, output, offset, length) &&
        writable(output, offset, length)
      ) {
        xorKey(source, output, offset, length, key[0], key[1], key[2], key[3]);
      } else if (!addonMask(maskWith, unmaskWith, source, key, output, offset, length)) {
        checkMask(kernel, source, key, output, offset, length);
      }
    },
    unmask: unmaskOf(kernel),
    backend,
  };
}

/** The tier `{ mask, unmask, backend }` over `xor(src, out, offset, length, word)` on checked Uint8Arrays. */
function routeBytes(backend, from, xor) {
  if (from === undefined) from = EVERY_SIZE;
  const unmask = (bytes, word) => xor(bytes, bytes, 0, typedArrayLength(bytes), word);
  const kernel = { takesBytes: true, maskFrom: from.mask, unmaskFrom: from.unmask, mask: xor, unmask };
  const { maskFrom } = kernel;
  return {
    /** `output[offset + i] = source[i] ^ key[i & 3]` for `i < length`; the key a view or 4 integers (index.d.ts). */
    mask(source, key, output, offset, length) {
      if (isPlainMask(source, key, output, offset, length) && writable(output, offset, length)) {
        if (length < maskFrom) xorKey(source, output, offset, length, key[0], key[1], key[2], key[3]);
        else xor(source, output, offset, length, wordOf(key[0], key[1], key[2], key[3]));
      } else {
        checkMask(kernel, source, key, output, offset, length);
      }
    },
    unmask: unmaskOf(kernel),
    backend,
  };
}

/** A tier's `unmask(buffer, key)`: `buffer[i] ^= key[i & 3]`, in place. */
function unmaskOf(kernel) {
  const { unmaskFrom, unmask: unmaskWith } = kernel;
  return function unmask(buffer, key) {
    const bytes = isUint8Array(buffer);
    if (bytes && unmaskFrom > 0 && buffer[unmaskFrom - 1] === undefined && isByteKey(key) && writable(buffer, 0, 1)) {
      xorShortInPlace(buffer, unmaskFrom, key[0], key[1], key[2], key[3]);
    } else if (bytes && isByteKey(key) && writable(buffer, 0, 1)) {
      unmaskWith(buffer, wordOf(key[0], key[1], key[2], key[3]));
    } else {
      checkUnmask(kernel, buffer, key);
    }
  };
}

/** The addon's fast path: numbers and a byte key straight to it. Where buffers may be immutable (the addon cannot
 * tell), element reads first show it takes the call, then the probe writes output[offset]. In place from 0 is an unmask. */
function addonMask(maskWith, unmaskWith, source, key, output, offset, length) {
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

/** Checked in full, in argument order (an Array key's getters may resize the views). Apart, so that `mask` inlines. */
function checkMask(kernel, source, key, output, offset, length) {
  checkView(source, 'source');
  const word = toKeyWord(key);
  if (isPlainMask(source, ANY_KEY, output, offset, length) && writable(output, offset, length)) {
    maskChecked(kernel, source, output, offset, length, word, source, output);
    return;
  }
  const src = toBytes(source);
  const out = toBytes(output);
  checkOutput(output, offset, length, src, out);
  maskChecked(kernel, source, output, offset, length, word, src, out);
}

/** Checked in full: the buffer, the key, then whether the buffer may be written. */
function checkUnmask(kernel, buffer, key) {
  checkView(buffer, 'buffer');
  const word = toKeyWord(key);
  const bytes = toBytes(buffer);
  const length = typedArrayLength(bytes);
  checkWritable(buffer, 0, length, 'buffer');
  maskChecked(kernel, buffer, buffer, 0, length, word, bytes, bytes);
}

/** The kernel on checked arguments (`src`, `out`: Uint8Arrays of the caller's views); the addon gets the views. */
function maskChecked(kernel, source, output, offset, length, word, src, out) {
  if (kernel.takesBytes) {
    kernel.mask(src, out, offset, length, word);
    return;
  }
  const inPlace = source === output && offset === 0;
  if (src === source && out === output && length < (inPlace ? kernel.unmaskFrom : kernel.maskFrom)) {
    xorKeyWord(source, output, offset, length, word);
  } else if (inPlace && src === source && hasExactly(source, length)) {
    kernel.unmask(source, word);
  } else {
    kernel.mask(source, output, offset, length, word);
  }
}

module.exports = { routeAddon, routeBytes };
