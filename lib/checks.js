'use strict';

// What every JavaScript-side tier shares (fallback.js, wasm.js, native.js, index.js): the predicates that
// route a call, the argument checks with the addon's errors and words, and the refusal of immutable
// outputs. Everything a call relies on is captured here at load: globals patched later (`Number.isInteger`,
// `Uint8Array`, `ArrayBuffer.isView`, …) cannot reach into a call.

const { isInteger } = Number;
const { isView } = ArrayBuffer;
const { isArray } = Array;
const { MAX_SAFE_INTEGER } = Number;
const Bytes = Uint8Array;
const TypeErrorOf = TypeError;
const RangeErrorOf = RangeError;
const EMPTY = new Bytes(0);

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
const utilTypes = nodeUtilTypes();
const isProxy = utilTypes?.isProxy ?? (() => false);
const isUint8Array = uint8ArrayTest();
const isSharedArrayBuffer = sharedArrayBufferTest();

// Immutable ArrayBuffers (TC39 proposal; V8's `--js-immutable-arraybuffer`) must never change. Where the
// runtime has them, every tier's exports are wrapped by `refusingImmutable`; elsewhere nothing is.
const immutableGetter = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'immutable')?.get;
const MAY_BE_IMMUTABLE = typeof immutableGetter === 'function';
const isImmutableBuffer = MAY_BE_IMMUTABLE ? uncurry(immutableGetter) : () => false;

// On a real Uint8Array an index reads the view's own bytes (never a property, never user code), so
// `view[n - 1] !== undefined` proves it has n bytes, whatever its own `length` property says; and it is
// cheap on every engine (calling the length accessor costs ~30 ns on JavaScriptCore).

/** Whether a real Uint8Array has at least `count` bytes (a non-negative integer): its last one exists. */
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

/** The 4 key bytes as one 32-bit word, the first in the low byte: how a key travels to the addon and the module. */
function keyWord(k0, k1, k2, k3) {
  return k0 | (k1 << 8) | (k2 << 16) | (k3 << 24);
}

/**
 * Whether a `mask` call is the common case every tier takes without further checks: real Uint8Arrays
 * (Buffers included) and a byte key, integers in range, the bounds probed by element (`hasBytes`).
 * In place (`output === source`, how ws masks what it sends) the output is the object just checked, and
 * an object's brand never changes (a prototype swap or own property changes no internal slot), so it is
 * not asked twice: on JavaScriptCore each brand check is a call out of the JIT's code (6-10 ns).
 */
function isPlainMask(source, mask, output, offset, length) {
  return (
    isUint8Array(source) &&
    (output === source || isUint8Array(output)) &&
    isByteKey(mask) &&
    isInteger(offset) &&
    isInteger(length) &&
    offset >= 0 &&
    length >= 0 &&
    hasBytes(source, length) &&
    hasBytes(output, offset + length)
  );
}

/** Whether an `unmask` call is the common case: a real Uint8Array and a byte key. */
function isPlainUnmask(buffer, mask) {
  return isUint8Array(buffer) && isByteKey(mask);
}

/**
 * `mask`'s arguments checked in the addon's order; then `run(src, out, offset, length, k0, k1, k2, k3)`
 * with byte views of the source and output and the 4 key bytes.
 */
function checkedMask(source, mask, output, offset, length, run) {
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
  run(src, out, offset, length, key[0], key[1], key[2], key[3]);
}

/** `unmask`'s arguments checked; then `run(bytes, bytes, 0, byteLength, k0, k1, k2, k3)`. */
function checkedUnmask(buffer, mask, run) {
  checkView(buffer, 'buffer');
  const key = toKey(mask);
  const bytes = toBytes(buffer);
  run(bytes, bytes, 0, typedArrayLength(bytes), key[0], key[1], key[2], key[3]);
}

/**
 * Whether the output starts inside the source past its start, where the forward loop reads bytes it
 * wrote a few steps before and only the byte loop gives its result. `src` and `out` are real Uint8Arrays
 * with `length` (> 0 for a write) source bytes and `offset + length` output bytes.
 *
 * By addresses first: were the two one memory, `out[offset]` would be `src[gap]`, `gap` counted from the
 * byte offsets (two cheap accessors); outside 0 < gap < length there is nothing to fear, whether they are
 * one memory or not. Only inside does it matter whether they are, and that is asked of the memory itself:
 * a byte written to `out[offset]` shows up at `src[gap]` exactly when it is the same byte (then put back).
 * This is exact for views of one ArrayBuffer and for distinct SharedArrayBuffer objects over one memory
 * (`structuredClone(sab)`, a shared `WebAssembly.Memory` before and after `grow`), which share its start,
 * and it calls neither `buffer` accessor (a call into the engine's C++ in V8: two of them were a fifth of
 * a 256 B masking call through the WebAssembly tier). The byte it writes is one the call overwrites anyway
 * (and, when aliased, the one the forward loop writes first); another thread writing the same byte of a
 * SharedArrayBuffer meanwhile is a data race, whose result no loop defines.
 */
function mayOverlapForward(src, out, offset, length) {
  // The element reads come first: once they have checked the views' maps, V8 inlines both byteOffset
  // accessors, which it calls otherwise (2.6 against 10.5 ns each, Node 24). A source with no bytes has
  // nothing to overlap (`length` is 0).
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

/**
 * A tier's `{ mask, unmask }` as they are where the runtime has no immutable ArrayBuffers; elsewhere the
 * same, refusing an immutable output or in-place buffer: every other argument is checked first, as
 * always, and then the refusal is thrown instead of anything written.
 */
function refusingImmutable(tier) {
  if (!MAY_BE_IMMUTABLE) return tier;
  const { mask, unmask } = tier;
  const refuse = (name) => () => {
    const error = new TypeErrorOf(`The "${name}" argument must not be backed by an immutable ArrayBuffer`);
    error.code = 'ERR_INVALID_ARG_VALUE';
    throw error;
  };
  const refuseOutput = refuse('output');
  const refuseBuffer = refuse('buffer');
  return {
    ...tier,
    mask(source, key, output, offset, length) {
      if (isImmutableView(output)) checkedMask(source, key, output, offset, length, refuseOutput);
      else mask(source, key, output, offset, length);
    },
    unmask(buffer, key) {
      if (isImmutableView(buffer)) checkedUnmask(buffer, key, refuseBuffer);
      else unmask(buffer, key);
    },
  };
}

/** Whether `value` is a view of an immutable ArrayBuffer. */
function isImmutableView(value) {
  if (!isView(value)) return false;
  const buffer = typedArrayKind(value) !== undefined ? typedArrayBuffer(value) : dataViewBuffer(value);
  return !isSharedArrayBuffer(buffer) && isImmutableBuffer(buffer);
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

/** The key as something indexable with 4 bytes: a byte view, or a checked array of 4 integers. */
function toKey(mask) {
  if (isView(mask)) {
    const bytes = toBytes(mask);
    const length = typedArrayLength(bytes);
    if (length < 4) {
      throw typeError(`The "mask" argument must have at least 4 bytes. Received ${length} bytes`);
    }
    return bytes;
  }
  // A Proxy of an array is no array to the addon either.
  if (isProxy(mask) || !isArray(mask)) {
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
    if (!(byte >= 0 && byte <= 255 && isInteger(byte))) {
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
  if (!(value >= 0 && value <= MAX_SAFE_INTEGER && isInteger(value))) {
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
  if (isArray(value)) return 'Array';
  try {
    arrayBufferByteLength(value);
    return 'ArrayBuffer';
  } catch {
    return 'another type';
  }
}

/** `node:util`'s `types` where the runtime has it: brand checks that ask the engine. */
function nodeUtilTypes() {
  try {
    return require('node:util').types;
  } catch {
    return undefined;
  }
}

/**
 * Whether a value is a real Uint8Array (Buffers included): `util.types.isUint8Array` asks the engine, which
 * no own property, prototype or Proxy can fool, in 2–5 ns on V8 and JavaScriptCore alike. Where there is no
 * `node:util`, the TypedArray accessor says the same, more slowly on some engines.
 */
function uint8ArrayTest() {
  const test = utilTypes?.isUint8Array;
  if (typeof test === 'function' && test(EMPTY) && !test(new Int8Array(0)) && !test(new DataView(new ArrayBuffer(0)))) return test;
  return (value) => typedArrayKind(value) === 'Uint8Array';
}

/** Whether an ArrayBuffer-like is a SharedArrayBuffer, by brand (its own byteLength accessor). */
function sharedArrayBufferTest() {
  const test = utilTypes?.isSharedArrayBuffer;
  if (typeof test === 'function') return test;
  if (typeof SharedArrayBuffer !== 'function') return () => false;
  const byteLength = accessor(SharedArrayBuffer.prototype, 'byteLength');
  return (value) => {
    try {
      byteLength(value);
      return true;
    } catch {
      return false;
    }
  };
}

function typeError(message) {
  const error = new TypeErrorOf(message);
  error.code = 'ERR_INVALID_ARG_TYPE';
  return error;
}

function rangeError(message) {
  const error = new RangeErrorOf(message);
  error.code = 'ERR_OUT_OF_RANGE';
  return error;
}

module.exports = {
  // Routing: what a call is, with no user code run.
  isUint8Array,
  isByteKey,
  isPlainMask,
  isPlainUnmask,
  hasBytes,
  hasExactly,
  keyWord,
  mayOverlapForward,
  // Checking: the addon's errors, word for word.
  checkedMask,
  checkedUnmask,
  refusingImmutable,
  // What the tiers read views with, captured at load.
  Bytes,
  uncurry,
  TypedArrayPrototype,
  typedArrayLength,
  typedArrayBuffer,
  typedArrayByteOffset,
};
