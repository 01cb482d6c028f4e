'use strict';

// The one home of argument checks and error words, for every tier: the predicates that route a call, the
// full checks that word every error, and the refusal of immutable outputs. Everything a call relies on is
// captured at load (Node core's rule for primordials): what is patched later cannot reach into a call.

const { isInteger } = Number;
const { isView } = ArrayBuffer;
const { isArray } = Array;
const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf } = Object;
const Bytes = Uint8Array;
const TypeErrorOf = TypeError;
const RangeErrorOf = RangeError;
const EMPTY = new Bytes(0);

// The engine's own accessors and methods, called on the value: no own property or patched
// `Function.prototype.call` changes what these do.
const uncurry = Function.prototype.bind.bind(Function.prototype.call);
const getter = (prototype, name) => {
  const get = getOwnPropertyDescriptor(prototype, name)?.get;
  return typeof get === 'function' ? uncurry(get) : undefined;
};
const TypedArrayPrototype = getPrototypeOf(Bytes.prototype);
/** The TypedArray kind ('Uint8Array' for Buffers too), or undefined for anything else. */
const typedArrayKind = getter(TypedArrayPrototype, Symbol.toStringTag);
const typedArrayLength = getter(TypedArrayPrototype, 'length');
const typedArrayBuffer = getter(TypedArrayPrototype, 'buffer');
const typedArrayByteOffset = getter(TypedArrayPrototype, 'byteOffset');
const typedArrayByteLength = getter(TypedArrayPrototype, 'byteLength');
const copyWithin = uncurry(TypedArrayPrototype.copyWithin);
const dataViewBuffer = getter(DataView.prototype, 'buffer');
const dataViewByteOffset = getter(DataView.prototype, 'byteOffset');
const dataViewByteLength = getter(DataView.prototype, 'byteLength');
const arrayBufferByteLength = getter(ArrayBuffer.prototype, 'byteLength');
// `node:util`'s brand checks, which ask the engine, where the runtime has them.
let utilTypes;
try {
  utilTypes = require('node:util').types;
} catch {}
const isProxy = utilTypes?.isProxy ?? (() => false);
const isUint8Array = uint8ArrayTest();

// Immutable ArrayBuffers (TC39 proposal) must never change. V8 has them from 14 on (Node 26, Deno 2.9)
// behind a flag code may set at any time, for buffers of realms made after; there every write path asks
// first (`writable`, `isImmutableView`). Bun reports a V8 version but runs JavaScriptCore.
const MAY_BE_IMMUTABLE =
  typeof ArrayBuffer.prototype.transferToImmutable === 'function' ||
  (typeof Bun === 'undefined' && Number(/^(\d+)\./.exec(globalThis.process?.versions?.v8 ?? '')?.[1]) >= 14);

/**
 * Whether a real Uint8Array has at least `count` bytes (a non-negative integer): an index reads the view's
 * own bytes, never a property or user code, cheaply on every engine.
 */
function hasBytes(view, count) {
  return count === 0 || view[count - 1] !== undefined;
}

/** Whether a real Uint8Array has exactly `count` bytes (any number: false unless it is that count). */
function hasExactly(view, count) {
  return view[count] === undefined && hasBytes(view, count);
}

/** Whether `key` is a byte key: a real Uint8Array of at least 4 bytes, which reading runs no user code. */
function isByteKey(key) {
  return isUint8Array(key) && key[3] !== undefined;
}

/** The 4 key bytes as one 32-bit word, the first in the low byte: how a key reaches every kernel. */
function keyWord(k0, k1, k2, k3) {
  return k0 | (k1 << 8) | (k2 << 16) | (k3 << 24);
}

/**
 * Whether a `mask` call is the common case every tier takes without further checks: real Uint8Arrays
 * (Buffers included), a byte key, integers in range, the bounds probed by element. An object's brand never
 * changes, so in place the output is not asked again.
 */
function isPlainMask(source, key, output, offset, length) {
  return (
    isUint8Array(source) &&
    (output === source || isUint8Array(output)) &&
    isByteKey(key) &&
    isInteger(offset) &&
    isInteger(length) &&
    offset >= 0 &&
    length >= 0 &&
    hasBytes(source, length) &&
    hasBytes(output, offset + length)
  );
}

const ANY_KEY = new Bytes(4);

/** `isPlainMask` but for the key, which the caller has read: one flat predicate, which JavaScriptCore inlines. */
function arePlainViews(source, output, offset, length) {
  return isPlainMask(source, ANY_KEY, output, offset, length);
}

/**
 * Whether byte `index` of a real Uint8Array can be written; false where there is no byte. lib/writable.js's
 * probe, or, where that code is strict, the byte written back in a `try` (an immutable buffer's view throws).
 */
const probe = !MAY_BE_IMMUTABLE
  ? undefined
  : (require('./writable') ??
    ((bytes, index) => {
      try {
        const byte = bytes[index];
        if (byte === undefined) return false;
        bytes[index] = byte;
        return true;
      } catch {
        return false;
      }
    }));

/**
 * Whether a call that is sure to write `bytes[offset .. offset + length)` of a real Uint8Array may do so:
 * the probe touches only `bytes[offset]`, a byte the call writes anyway, so it is asked only once the call
 * cannot throw and only when `length` > 0; false otherwise (the call is then checked in full, which asks
 * without writing). A constant where no buffer can be immutable (JavaScriptCore inlines no `try`).
 */
const writable = !MAY_BE_IMMUTABLE ? () => true : (bytes, offset, length) => length > 0 && probe(bytes, offset);

/** Whether a view's buffer is immutable, asked without writing: an empty `copyWithin` throws only on immutable or detached memory. */
function isImmutableView(view) {
  if (!MAY_BE_IMMUTABLE) return false;
  const buffer = typedArrayKind(view) !== undefined ? typedArrayBuffer(view) : dataViewBuffer(view);
  try {
    copyWithin(new Bytes(buffer, 0, 0), 0, 0, 0);
    return false;
  } catch {
    return arrayBufferByteLength(buffer) > 0;
  }
}

/**
 * Whether a checked view, which the call is sure to write at `[index, index + length)`, is immutable:
 * `writable` answers at once for a Uint8Array, else the engine is asked without writing.
 */
function isImmutable(view, index, length) {
  return MAY_BE_IMMUTABLE && !(isUint8Array(view) && writable(view, index, length)) && isImmutableView(view);
}

/**
 * `mask`'s arguments checked in order (source, key, output, offset, length, bounds, immutability); then
 * `run(source, output, offset, length, keyWord, src, out)` with the caller's views and Uint8Arrays of them
 * made after the key was read (its getters may have detached or shrunk the views).
 */
function checkedMask(source, key, output, offset, length, run) {
  checkView(source, 'source');
  const word = toKeyWord(key);
  // An Array key with plain views (undici's calls): nothing else to word, the views are their own bytes.
  if (arePlainViews(source, output, offset, length) && writable(output, offset, length)) {
    run(source, output, offset, length, word, source, output);
    return;
  }
  checkView(output, 'output');
  checkInteger(offset, 'offset');
  checkInteger(length, 'length');
  const src = toBytes(source);
  const out = toBytes(output);
  const sourceLength = typedArrayLength(src);
  const outputLength = typedArrayLength(out);
  if (!(length >= 0 && length <= sourceLength && length <= outputLength)) {
    // Named after the smaller bound: a detached output is no "offset" problem.
    const bound = sourceLength <= outputLength ? 'source' : 'output';
    throw outOfRange('length', `${bound}.byteLength`, sourceLength <= outputLength ? sourceLength : outputLength, length);
  }
  if (!(offset >= 0 && offset <= outputLength - length)) {
    throw outOfRange('offset', 'output.byteLength - length', outputLength - length, offset);
  }
  if (isImmutable(output, offset, length)) throw immutable('output');
  run(source, output, offset, length, word, src, out);
}

/** `unmask`'s arguments checked; then `run(buffer, buffer, 0, byteLength, keyWord, bytes, bytes)`. */
function checkedUnmask(buffer, key, run) {
  checkView(buffer, 'buffer');
  const word = toKeyWord(key);
  const bytes = toBytes(buffer);
  const length = typedArrayLength(bytes);
  if (isImmutable(buffer, 0, length)) throw immutable('buffer');
  run(buffer, buffer, 0, length, word, bytes, bytes);
}

function checkView(value, name) {
  if (!isView(value)) {
    throw typeError(`The "${name}" argument must be an instance of Buffer, TypedArray, or DataView.${received(value)}`);
  }
}

/** The bytes of a view, as a Uint8Array (the view itself when it is one); none once detached. */
function toBytes(view) {
  const kind = typedArrayKind(view);
  if (kind === 'Uint8Array') return view;
  if (kind !== undefined) {
    const byteLength = typedArrayByteLength(view);
    return byteLength === 0 ? EMPTY : new Bytes(typedArrayBuffer(view), typedArrayByteOffset(view), byteLength);
  }
  // A DataView's accessors throw once its buffer is detached or shrunk past it: then it has no bytes.
  try {
    return new Bytes(dataViewBuffer(view), dataViewByteOffset(view), dataViewByteLength(view));
  } catch {
    return EMPTY;
  }
}

/** The key as one word: the first 4 bytes of a view, or a checked array of 4 integers. */
function toKeyWord(key) {
  if (isView(key)) {
    const bytes = toBytes(key);
    const length = typedArrayLength(bytes);
    if (length < 4) {
      throw valueError(`The "mask" argument must be at least 4 bytes long. Received ${length} bytes`);
    }
    return keyWord(bytes[0], bytes[1], bytes[2], bytes[3]);
  }
  // A Proxy of an array is no array here.
  if (isProxy(key) || !isArray(key)) {
    throw typeError(
      `The "mask" argument must be an instance of Buffer, TypedArray, DataView, or an Array of 4 integers.${received(key)}`
    );
  }
  if (key.length !== 4) {
    throw valueError(`The "mask" array must have 4 elements. Received ${key.length}`);
  }
  let word = 0;
  for (let i = 0; i < 4; i++) {
    const byte = key[i];
    if (typeof byte !== 'number') {
      throw typeError(`The "mask[${i}]" element must be of type number.${received(byte)}`);
    }
    if (!(byte >= 0 && byte <= 255 && isInteger(byte))) {
      throw rangeError(`The value of "mask[${i}]" is out of range. It must be an integer >= 0 and <= 255. Received ${byte}`);
    }
    word |= byte << (8 * i);
  }
  return word;
}

/** A number that is an integer, or the error for `name`: its range is checked against the views. */
function checkInteger(value, name) {
  if (typeof value !== 'number') {
    throw typeError(`The "${name}" argument must be of type number.${received(value)}`);
  }
  if (!isInteger(value)) {
    throw rangeError(`The value of "${name}" is out of range. It must be an integer. Received ${value}`);
  }
}

/** The error for `name` outside 0..`limit`, where `bound` says what `limit` is, as Node's words it. */
function outOfRange(name, bound, limit, value) {
  return rangeError(`The value of "${name}" is out of range. It must be >= 0 && <= ${bound} (${limit}). Received ${value}`);
}

/** `" Received …"`: what a wrong argument was, told by brand checks that run no getter or Proxy trap. */
function received(value) {
  if (value === undefined) return ' Received undefined';
  if (value === null) return ' Received null';
  const type = typeof value;
  if (type !== 'object') return ` Received type ${type}`;
  // A Proxy of an array is no array here.
  const kind = isProxy(value) ? 'another type' : isArray(value) ? 'Array' : isArrayBuffer(value) ? 'ArrayBuffer' : 'another type';
  return ` Received an instance of ${kind}`;
}

function isArrayBuffer(value) {
  try {
    arrayBufferByteLength(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a value is a real Uint8Array (Buffers included): `util.types.isUint8Array` asks the engine, which
 * no own property, prototype or Proxy can fool, and is cheap on V8 and JavaScriptCore alike. Where there is
 * no `node:util`, the TypedArray accessor says the same, more slowly on some engines.
 */
function uint8ArrayTest() {
  const test = utilTypes?.isUint8Array;
  if (typeof test === 'function' && test(EMPTY) && !test(new Int8Array(0)) && !test(new DataView(new ArrayBuffer(0))))
    return test;
  return (value) => typedArrayKind(value) === 'Uint8Array';
}

/** An error with Node's `code`, defined (an assignment would run a setter on `Error.prototype`). */
function withCode(error, code) {
  defineProperty(error, 'code', { value: code, writable: true, enumerable: true, configurable: true });
  return error;
}

const typeError = (message) => withCode(new TypeErrorOf(message), 'ERR_INVALID_ARG_TYPE');
const rangeError = (message) => withCode(new RangeErrorOf(message), 'ERR_OUT_OF_RANGE');
const valueError = (message) => withCode(new TypeErrorOf(message), 'ERR_INVALID_ARG_VALUE');
const immutable = (name) => valueError(`The "${name}" argument must not be backed by an immutable ArrayBuffer`);

module.exports = {
  // Routing: what a call is, with no user code run.
  MAY_BE_IMMUTABLE,
  isUint8Array,
  isByteKey,
  isPlainMask,
  hasExactly,
  keyWord,
  writable,
  // Checking: every error, word for word.
  checkedMask,
  checkedUnmask,
  withCode,
  // What the tiers read views with, captured at load.
  Bytes,
  uncurry,
  TypedArrayPrototype,
  typedArrayLength,
  typedArrayBuffer,
  typedArrayByteOffset,
};
