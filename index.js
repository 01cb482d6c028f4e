'use strict';

const fallback = require('./fallback');
const { requested } = require('./level');

// Below these sizes (bytes) the JavaScript loop beats the cost of a native call; measured with
// `npm run bench` (see the README). Both paths check their arguments and throw the same errors.
const MASK_NATIVE_FROM = 80;
const UNMASK_NATIVE_FROM = 56;

function loadNative() {
  if (requested === 'js') return null;
  try {
    return require('./binding');
  } catch {
    return null;
  }
}

const native = loadNative();

if (native === null) {
  module.exports = { mask: fallback.mask, unmask: fallback.unmask, backend: 'js' };
} else {
  const { maskWord, unmaskWord } = native;
  // The engine's own TypedArray accessors: what a view's own properties say cannot steer the choice.
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
  const kindOf = uncurry(Object.getOwnPropertyDescriptor(TypedArrayPrototype, Symbol.toStringTag).get);
  const lengthOf = uncurry(Object.getOwnPropertyDescriptor(TypedArrayPrototype, 'length').get);
  const isByteKey = (key) => kindOf(key) === 'Uint8Array' && lengthOf(key) >= 4;
  const nativeMask = native.mask;
  const nativeUnmask = native.unmask;
  const jsMask = fallback.mask;
  const jsUnmask = fallback.unmask;

  // A byte key goes to the addon as one integer, which costs Node-API less to read than a view (the
  // addon checks it all the same); any other key goes as it came.
  const keyWord = (key) => key[0] | (key[1] << 8) | (key[2] << 16) | (key[3] << 24);

  /**
   * Masks `length` bytes of `source` into `output` at `offset`:
   * `output[offset + i] = source[i] ^ mask[i & 3]`.
   */
  const mask = (source, mask, output, offset, length) => {
    if (source === output && offset === 0 && isByteKey(mask) && kindOf(source) === 'Uint8Array' && length === lengthOf(source)) {
      // ws masks whole buffers in place. That is an unmask: one view for the addon to look up, not two.
      // Only with a byte key: reading it runs no user code, so `length` still covers the whole buffer
      // when the unmask runs (an array key's getters could resize or detach it first).
      if (length < UNMASK_NATIVE_FROM) jsUnmask(source, mask);
      else unmaskWord(source, keyWord(mask));
    } else if (typeof length === 'number' && length < MASK_NATIVE_FROM) {
      jsMask(source, mask, output, offset, length);
    } else if (isByteKey(mask)) {
      maskWord(source, keyWord(mask), output, offset, length);
    } else {
      nativeMask(source, mask, output, offset, length);
    }
  };

  /** Unmasks `buffer` in place: `buffer[i] ^= mask[i & 3]`. */
  const unmask = (buffer, mask) => {
    if (kindOf(buffer) === 'Uint8Array' && lengthOf(buffer) < UNMASK_NATIVE_FROM) jsUnmask(buffer, mask);
    else if (isByteKey(mask)) unmaskWord(buffer, keyWord(mask));
    else nativeUnmask(buffer, mask);
  };

  module.exports = { mask, unmask, backend: native.backend };
}
