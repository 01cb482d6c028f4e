'use strict';

// What a call's arguments are, asked with no user code run: the engine's accessors captured at load (Node
// core's primordials rule), brand checks, bounds probed by element, a view's bytes, and whether it is writable.

const { isInteger } = Number;
const { getOwnPropertyDescriptor, getPrototypeOf } = Object;
const Bytes = Uint8Array;
const EMPTY = new Bytes(0);

// Called on the value: no own property or patched `Function.prototype.call` changes what these do.
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
let utilTypes;
try {
  utilTypes = require('node:util').types;
} catch {}
const isProxy = utilTypes?.isProxy ?? (() => false);
const brand = utilTypes?.isUint8Array;
/** A real Uint8Array (Buffers included): the engine's brand check, else the TypedArray accessor, more slowly. */
const isUint8Array =
  typeof brand === 'function' && brand(EMPTY) && !brand(new Int8Array(0)) && !brand(new DataView(new ArrayBuffer(0)))
    ? brand
    : (value) => typedArrayKind(value) === 'Uint8Array';

// Immutable ArrayBuffers: V8 has them from 14 on behind a flag code may set at any time; there every write
// path asks first. Bun reports a V8 version but runs JavaScriptCore.
const MAY_BE_IMMUTABLE =
  typeof ArrayBuffer.prototype.transferToImmutable === 'function' ||
  (typeof Bun === 'undefined' && Number(/^(\d+)\./.exec(globalThis.process?.versions?.v8 ?? '')?.[1]) >= 14);

/** Whether a real Uint8Array has at least `count` (≥ 0) bytes, read by index. */
function hasBytes(view, count) {
  return count === 0 || view[count - 1] !== undefined;
}

/** Whether a real Uint8Array has exactly `count` bytes. */
function hasExactly(view, count) {
  return view[count] === undefined && hasBytes(view, count);
}

/** A real Uint8Array of at least 4 bytes. */
function isByteKey(key) {
  return isUint8Array(key) && key[3] !== undefined;
}

/** The 4 key bytes as one word, the first in the low byte: how a key reaches every kernel. */
function wordOf(k0, k1, k2, k3) {
  return k0 | (k1 << 8) | (k2 << 16) | (k3 << 24);
}

/** Whether a `mask` call needs no further checks: real Uint8Arrays, a byte key, integers in range. */
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

/** Whether a call sure to write `bytes[offset .. offset + length)` may: byte `offset` flipped, read back and restored, asked
 * once the call cannot throw; false for `length` 0. A constant where no buffer can be immutable (JSC inlines no `try`). */
const writable = !MAY_BE_IMMUTABLE
  ? () => true
  : (bytes, offset, length) => {
      const byte = bytes[offset];
      if (!(length > 0) || byte === undefined) return false;
      try {
        bytes[offset] = byte ^ 1;
      } catch {
        return false;
      }
      if (bytes[offset] === byte) return false; // an immutable buffer in sloppy code (a bundle without 'use strict')
      bytes[offset] = byte;
      return true;
    };

/** Whether a checked view the call will write at `[index, index + length)` is immutable, asked without writing. */
function isImmutable(view, index, length) {
  if (!MAY_BE_IMMUTABLE || (isUint8Array(view) && writable(view, index, length))) return false;
  const buffer = typedArrayKind(view) !== undefined ? typedArrayBuffer(view) : dataViewBuffer(view);
  try {
    copyWithin(new Bytes(buffer, 0, 0), 0, 0, 0);
    return false;
  } catch {
    return arrayBufferByteLength(buffer) > 0;
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

module.exports = {
  MAY_BE_IMMUTABLE,
  Bytes,
  uncurry,
  getter,
  TypedArrayPrototype,
  typedArrayLength,
  typedArrayBuffer,
  typedArrayByteOffset,
  arrayBufferByteLength,
  isProxy,
  isUint8Array,
  hasExactly,
  isByteKey,
  wordOf,
  isPlainMask,
  writable,
  isImmutable,
  toBytes,
};
