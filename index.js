'use strict';

const fallback = require('./fallback');
const { typedArrayKind: kindOf, typedArrayLength: lengthOf } = require('./checks');

// Below these sizes (bytes) the JavaScript loop beats the cost of a native call; measured with
// `npm run bench` (see the README). Both paths check their arguments and throw the same errors.
const MASK_NATIVE_FROM = 80;
const UNMASK_NATIVE_FROM = 56;

const LEVELS = ['avx512', 'avx2', 'sse2', 'neon', 'scalar', 'wasm', 'js'];

/** `BUFFERUTIL_SIMD_LEVEL`, if set and readable (Deno needs `--allow-env` to read it). */
function requestedLevel() {
  let level;
  try {
    level = process.env.BUFFERUTIL_SIMD_LEVEL;
  } catch {
    return undefined;
  }
  if (level !== undefined && level !== '' && !LEVELS.includes(level.trim())) {
    process.emitWarning(`BUFFERUTIL_SIMD_LEVEL=${level} is not one of ${LEVELS.join(', ')}; ignored`);
  }
  return level && level.trim();
}

const level = requestedLevel();

/** The module at `path`, or null if it cannot load here. */
function tryRequire(path) {
  try {
    return require(path);
  } catch {
    return null;
  }
}

// Native where the addon loads, else WebAssembly SIMD where the runtime has it, else JavaScript.
const native = level === 'js' || level === 'wasm' ? null : tryRequire('./binding');

if (native === null) {
  module.exports = level === 'js' ? { mask: fallback.mask, unmask: fallback.unmask, backend: 'js' } : require('./portable');
} else {
  const { maskWord, unmaskWord } = native;
  // The engine's own TypedArray accessors (checks.js): what a view's own properties say cannot steer the
  // choice.
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
    if (source === output && offset === 0 && kindOf(source) === 'Uint8Array' && length === lengthOf(source)) {
      // ws masks whole buffers in place. That is an unmask: one view for the addon to look up, not two.
      unmask(source, mask);
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
