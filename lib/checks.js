'use strict';

// The checks of a call no fast path took, in argument order: each returns or throws Node's error, word for word.

const { isInteger } = Number;
const { isView } = ArrayBuffer;
const { isArray } = Array;
const { defineProperty } = Object;
const { TypeError: TypeErrorOf, RangeError: RangeErrorOf } = globalThis;
const { isProxy, typedArrayLength, arrayBufferByteLength, wordOf, isImmutable, toBytes } = require('./views');

/** The rest of `mask`'s checks; `src`, `out`: the views' bytes, taken after the key's getters ran. */
function checkOutput(output, offset, length, src, out) {
  checkView(output, 'output');
  checkInteger(offset, 'offset');
  checkInteger(length, 'length');
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
  checkWritable(output, offset, length, 'output');
}

function checkWritable(view, index, length, name) {
  if (isImmutable(view, index, length)) throw valueError(`The "${name}" argument must not be backed by an immutable ArrayBuffer`);
}

function checkView(value, name) {
  if (!isView(value)) {
    throw typeError(`The "${name}" argument must be an instance of Buffer, TypedArray, or DataView.${received(value)}`);
  }
}

function toKeyWord(key) {
  if (isView(key)) {
    const bytes = toBytes(key);
    const length = typedArrayLength(bytes);
    if (length < 4) {
      throw valueError(`The "mask" argument must be at least 4 bytes long. Received ${length} bytes`);
    }
    return wordOf(bytes[0], bytes[1], bytes[2], bytes[3]);
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

function checkInteger(value, name) {
  if (typeof value !== 'number') {
    throw typeError(`The "${name}" argument must be of type number.${received(value)}`);
  }
  if (!isInteger(value)) {
    throw rangeError(`The value of "${name}" is out of range. It must be an integer. Received ${value}`);
  }
}

function outOfRange(name, bound, limit, value) {
  return rangeError(`The value of "${name}" is out of range. It must be >= 0 && <= ${bound} (${limit}). Received ${value}`);
}

/** `" Received …"`, told by brand checks that run no getter or Proxy trap. */
function received(value) {
  if (value === undefined || value === null) return ` Received ${value}`;
  const type = typeof value;
  if (type !== 'object') return ` Received type ${type}`;
  if (isProxy(value)) return ' Received an instance of another type';
  if (isArray(value)) return ' Received an instance of Array';
  try {
    arrayBufferByteLength(value);
    return ' Received an instance of ArrayBuffer';
  } catch {
    return ' Received an instance of another type';
  }
}

/** An error with Node's `code`, defined (an assignment would run a setter on `Error.prototype`). */
function withCode(error, code) {
  defineProperty(error, 'code', { value: code, writable: true, enumerable: true, configurable: true });
  return error;
}

const typeError = (message) => withCode(new TypeErrorOf(message), 'ERR_INVALID_ARG_TYPE');
const rangeError = (message) => withCode(new RangeErrorOf(message), 'ERR_OUT_OF_RANGE');
const valueError = (message) => withCode(new TypeErrorOf(message), 'ERR_INVALID_ARG_VALUE');

module.exports = { checkView, toKeyWord, checkOutput, checkWritable };
