'use strict';

// The pure-JavaScript implementation: the same checks, errors and results as the native addon.

const MAX_SAFE_INTEGER = Number.MAX_SAFE_INTEGER;
const WORDS_FROM = 1024;
const EMPTY = new Uint8Array(0);

// The engine's own accessors, called on the value: own properties that shadow `length` or `buffer` on a
// view, or a patched `Function.prototype.call`, cannot change what these read.
const uncurry = Function.prototype.bind.bind(Function.prototype.call);
const accessor = (prototype, name) => uncurry(Object.getOwnPropertyDescriptor(prototype, name).get);
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
/** The TypedArray kind ('Uint8Array' for Buffers too), or undefined for anything else. */
const typedArrayKind = accessor(TypedArrayPrototype, Symbol.toStringTag);
const typedArrayLength = accessor(TypedArrayPrototype, 'length');
const typedArrayBuffer = accessor(TypedArrayPrototype, 'buffer');
const typedArrayByteOffset = accessor(TypedArrayPrototype, 'byteOffset');
const typedArrayByteLength = accessor(TypedArrayPrototype, 'byteLength');
const dataViewBuffer = accessor(DataView.prototype, 'buffer');
const dataViewByteOffset = accessor(DataView.prototype, 'byteOffset');
const dataViewByteLength = accessor(DataView.prototype, 'byteLength');
const arrayBufferByteLength = accessor(ArrayBuffer.prototype, 'byteLength');
const isProxy = proxyTest();
const isUint8Array = uint8ArrayTest();

// A 4-byte scratch word: the key as a machine word in this platform's byte order.
const keyBytes = new Uint8Array(4);
const keyWord = new Int32Array(keyBytes.buffer);

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
  // The common case (Buffers or Uint8Arrays, a byte key, valid integers) costs a few comparisons. The
  // bounds are probed by element (`hasBytes`): on a real Uint8Array an index reads its own bytes, never a
  // property, and it is cheap on every engine (calling the length accessor is ~30 ns on JavaScriptCore).
  if (
    isUint8Array(source) &&
    isUint8Array(output) &&
    isUint8Array(mask) &&
    mask[3] !== undefined &&
    Number.isInteger(offset) &&
    Number.isInteger(length) &&
    offset >= 0 &&
    length >= 0 &&
    hasBytes(source, length) &&
    hasBytes(output, offset + length)
  ) {
    xorKey(source, output, offset, length, mask[0], mask[1], mask[2], mask[3]);
  } else {
    checkedMask(source, mask, output, offset, length);
  }
}

/** `mask` for every other input: views of other kinds, array keys, and everything it must reject. */
function checkedMask(source, mask, output, offset, length) {
  checkView(source, 'source');
  const key = toKey(mask);
  checkView(output, 'output');
  checkIndex(offset, 'offset');
  checkIndex(length, 'length');
  // After the key: an array key's getters may have detached or shrunk the views.
  const src = toBytes(source);
  const out = toBytes(output);
  const sourceLength = typedArrayLength(src);
  const outputLength = typedArrayLength(out);
  if (length > sourceLength || length > outputLength) {
    // Named after the smaller bound it broke: a detached output is no "offset" problem.
    const [bound, byteLength] =
      sourceLength <= outputLength ? ['source.byteLength', sourceLength] : ['output.byteLength', outputLength];
    throw rangeError(`The value of "length" is out of range. It must be <= ${bound} (${byteLength}). Received ${length}`);
  }
  if (offset > outputLength - length) {
    throw rangeError(
      `The value of "offset" is out of range. It must be <= output.byteLength - length (${outputLength - length}). Received ${offset}`
    );
  }
  xorKey(src, out, offset, length, key[0], key[1], key[2], key[3]);
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
  if (isUint8Array(buffer) && isUint8Array(mask) && mask[3] !== undefined) {
    xorKey(buffer, buffer, 0, typedArrayLength(buffer), mask[0], mask[1], mask[2], mask[3]);
    return;
  }
  checkView(buffer, 'buffer');
  const key = toKey(mask);
  const bytes = toBytes(buffer);
  xorKey(bytes, bytes, 0, typedArrayLength(bytes), key[0], key[1], key[2], key[3]);
}

/** Whether a real Uint8Array has at least `count` bytes (a non-negative integer): its last one exists. */
function hasBytes(view, count) {
  return count === 0 || view[count - 1] !== undefined;
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
  if ((srcAt | outAt) & 3 || overlapsForward(src, out, offset, length)) return 0;
  keyBytes[0] = k0;
  keyBytes[1] = k1;
  keyBytes[2] = k2;
  keyBytes[3] = k3;
  const word = keyWord[0];
  const words = Math.floor(length / 4);
  const srcWords = new Int32Array(typedArrayBuffer(src), srcAt, words);
  const outWords = new Int32Array(typedArrayBuffer(out), outAt, words);
  for (let i = 0; i < words; i++) outWords[i] = srcWords[i] ^ word;
  return words * 4;
}

/**
 * True when the output starts inside the source past its start: then the forward loop reads bytes it
 * wrote a few steps before, and only the byte loop gives its result.
 */
function overlapsForward(src, out, offset, length) {
  if (typedArrayBuffer(src) !== typedArrayBuffer(out)) return false;
  const gap = typedArrayByteOffset(out) + offset - typedArrayByteOffset(src);
  return gap > 0 && gap < length;
}

function checkView(value, name) {
  if (!ArrayBuffer.isView(value)) {
    throw typeError(`The "${name}" argument must be an instance of Buffer, TypedArray, or DataView.${received(value)}`);
  }
}

/** The bytes of a view, as a Uint8Array (the view itself when it is one); none once detached. */
function toBytes(view) {
  const kind = typedArrayKind(view);
  if (kind === 'Uint8Array') return view;
  if (kind !== undefined) {
    const byteLength = typedArrayByteLength(view);
    return byteLength === 0 ? EMPTY : new Uint8Array(typedArrayBuffer(view), typedArrayByteOffset(view), byteLength);
  }
  // A DataView's accessors throw once its buffer is detached or shrunk past it: then it has no bytes.
  try {
    return new Uint8Array(dataViewBuffer(view), dataViewByteOffset(view), dataViewByteLength(view));
  } catch {
    return EMPTY;
  }
}

/** The key as something indexable with 4 bytes: a byte view, or a checked array of 4 integers. */
function toKey(mask) {
  if (ArrayBuffer.isView(mask)) {
    const bytes = toBytes(mask);
    const length = typedArrayLength(bytes);
    if (length < 4) {
      throw typeError(`The "mask" argument must have at least 4 bytes. Received ${length} bytes`);
    }
    return bytes;
  }
  // A Proxy of an array is no array to the addon either.
  if (isProxy(mask) || !Array.isArray(mask)) {
    throw typeError(
      `The "mask" argument must be an instance of Buffer, TypedArray, DataView, or an Array of 4 integers.${received(mask)}`
    );
  }
  if (mask.length !== 4) {
    throw typeError(`The "mask" array must have 4 elements. Received ${mask.length}`);
  }
  const key = [0, 0, 0, 0];
  for (let i = 0; i < 4; i++) {
    const byte = mask[i];
    if (typeof byte !== 'number') {
      throw typeError(`The "mask[${i}]" element must be of type number.${received(byte)}`);
    }
    if (!(byte >= 0 && byte <= 255 && Number.isInteger(byte))) {
      throw rangeError(
        `The value of "mask[${i}]" is out of range. It must be an integer >= 0 and <= 255. Received ${byte}`
      );
    }
    key[i] = byte;
  }
  return key;
}

function checkIndex(value, name) {
  if (typeof value !== 'number') {
    throw typeError(`The "${name}" argument must be of type number.${received(value)}`);
  }
  if (!(value >= 0 && value <= MAX_SAFE_INTEGER && Number.isInteger(value))) {
    throw rangeError(
      `The value of "${name}" is out of range. It must be an integer >= 0 and <= ${MAX_SAFE_INTEGER}. Received ${value}`
    );
  }
}

/** `" Received …"`, worded as the native addon words it. */
function received(value) {
  if (value === undefined) return ' Received undefined';
  if (value === null) return ' Received null';
  const type = typeof value;
  return type === 'object' ? ` Received an instance of ${objectKind(value)}` : ` Received type ${type}`;
}

/**
 * 'Array' or 'ArrayBuffer' for those kinds of object, told by brand checks that run no getter or Proxy
 * trap (as the addon tells them); 'another type' for the rest.
 */
function objectKind(value) {
  if (isProxy(value)) return 'another type';
  if (Array.isArray(value)) return 'Array';
  try {
    arrayBufferByteLength(value);
    return 'ArrayBuffer';
  } catch {
    return 'another type';
  }
}

/**
 * Whether a value is a real Uint8Array (Buffers included): `util.types.isUint8Array` asks the engine, which
 * no own property, prototype or Proxy can fool, in 2–5 ns on V8 and JavaScriptCore alike. Where there is no
 * `node:util`, the TypedArray accessor says the same, more slowly on some engines.
 */
function uint8ArrayTest() {
  try {
    const test = require('node:util').types.isUint8Array;
    if (typeof test === 'function' && test(EMPTY) && !test(new Int8Array(0)) && !test(new DataView(new ArrayBuffer(0)))) return test;
  } catch {}
  return (value) => typedArrayKind(value) === 'Uint8Array';
}

/** `util.types.isProxy` where the runtime has it; elsewhere nothing counts as a Proxy. */
function proxyTest() {
  try {
    return require('node:util').types.isProxy;
  } catch {
    return () => false;
  }
}

function typeError(message) {
  const error = new TypeError(message);
  error.code = 'ERR_INVALID_ARG_TYPE';
  return error;
}

function rangeError(message) {
  const error = new RangeError(message);
  error.code = 'ERR_OUT_OF_RANGE';
  return error;
}

module.exports = { mask, unmask, backend: 'js' };
