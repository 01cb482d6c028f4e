'use strict';

const fallback = require('./fallback');

// Sizes in bytes, measured with `npm run bench` (see the README, "Performance"). Below *_NATIVE_FROM the
// JS loop beats the cost of any native call. Below *_CORE_BELOW, on Node versions that have
// `http.websocketMask` (26+), Node's built-in beats the addon: it costs less to call than Node-API.
const MASK_NATIVE_FROM = 96;
const UNMASK_NATIVE_FROM = 56;
const MASK_CORE_BELOW = 4096;
const UNMASK_CORE_BELOW = 2048;

const LEVELS = ['avx512', 'avx2', 'sse2', 'neon', 'scalar', 'js'];

/** `BUFFERUTIL_SIMD_LEVEL`, trimmed, if set and readable (Deno needs `--allow-env` to read it). */
function requestedLevel() {
  let level;
  try {
    level = process.env.BUFFERUTIL_SIMD_LEVEL;
  } catch {
    return undefined;
  }
  level = level === undefined ? '' : level.trim();
  if (level !== '' && !LEVELS.includes(level)) {
    process.emitWarning(`BUFFERUTIL_SIMD_LEVEL=${level} is not one of ${LEVELS.join(', ')}; ignored`);
  }
  return level;
}

function loadNative() {
  try {
    return require('./binding');
  } catch {
    return null;
  }
}

/** Node's own masking (Node 26+), or null. */
function coreMasking() {
  try {
    const { websocketMask, websocketUnmask } = require('node:http');
    return typeof websocketMask === 'function' && typeof websocketUnmask === 'function'
      ? { websocketMask, websocketUnmask }
      : null;
  } catch {
    return null;
  }
}

const requested = requestedLevel();
const native = requested === 'js' ? null : loadNative();

if (native === null) {
  module.exports = { mask: fallback.mask, unmask: fallback.unmask, backend: 'js' };
} else {
  // A requested level means exactly that level, without Node's built-in.
  const core = requested === '' ? coreMasking() : null;
  const coreMask = core && core.websocketMask;
  const coreUnmask = core && core.websocketUnmask;
  const { maskWord, unmaskWord } = native;
  const nativeMask = native.mask;
  const nativeUnmask = native.unmask;
  const jsMask = fallback.mask;
  const jsUnmask = fallback.unmask;

  // The engine's own TypedArray accessors: what a view's own properties say cannot steer the choice.
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
  const accessor = (name) => uncurry(Object.getOwnPropertyDescriptor(TypedArrayPrototype, name).get);
  const kindOf = accessor(Symbol.toStringTag);
  const lengthOf = accessor('length');
  const bufferOf = accessor('buffer');
  const isBytes = (value) => kindOf(value) === 'Uint8Array';
  const isByteKey = (key) => isBytes(key) && lengthOf(key) >= 4;

  // A byte key goes to the addon as one integer, which costs Node-API less to read than a view (the
  // addon checks it all the same); any other key goes as it came.
  const keyWord = (key) => key[0] | (key[1] << 8) | (key[2] << 16) | (key[3] << 24);

  /**
   * Whether Node's built-in gives this call exactly our result: it takes only 4-byte keys, throws its
   * own errors (so only valid calls go to it), and is not known to follow the forward loop where the
   * output starts inside the source.
   */
  const coreCanMask = (source, key, output, offset, length) =>
    lengthOf(key) === 4 &&
    isBytes(source) &&
    isBytes(output) &&
    Number.isInteger(offset) &&
    Number.isInteger(length) &&
    offset >= 0 &&
    length <= lengthOf(source) &&
    offset + length <= lengthOf(output) &&
    (bufferOf(source) !== bufferOf(output) || (source === output && offset === 0));

  /**
   * Masks `length` bytes of `source` into `output` at `offset`:
   * `output[offset + i] = source[i] ^ mask[i & 3]`.
   */
  const mask = (source, mask, output, offset, length) => {
    if (typeof length === 'number' && length < MASK_NATIVE_FROM) {
      jsMask(source, mask, output, offset, length);
    } else if (!isByteKey(mask)) {
      nativeMask(source, mask, output, offset, length);
    } else if (coreMask !== null && length < MASK_CORE_BELOW && coreCanMask(source, mask, output, offset, length)) {
      coreMask(source, mask, output, offset, length);
    } else {
      maskWord(source, keyWord(mask), output, offset, length);
    }
  };

  /** Unmasks `buffer` in place: `buffer[i] ^= mask[i & 3]`. */
  const unmask = (buffer, mask) => {
    const length = isBytes(buffer) ? lengthOf(buffer) : -1;
    if (length >= 0 && length < UNMASK_NATIVE_FROM) {
      jsUnmask(buffer, mask);
    } else if (!isByteKey(mask)) {
      nativeUnmask(buffer, mask);
    } else if (coreUnmask !== null && length >= 0 && length < UNMASK_CORE_BELOW && lengthOf(mask) === 4) {
      coreUnmask(buffer, mask);
    } else {
      unmaskWord(buffer, keyWord(mask));
    }
  };

  module.exports = { mask, unmask, backend: native.backend };
}
