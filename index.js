'use strict';

// The package: the native addon where it loads (lib/native.js), else WebAssembly SIMD, else JavaScript
// (portable.js). With the addon, short payloads stay in JavaScript (lib/thresholds.js), common calls reach
// the addon through its block, and everything else through its fully checked `mask` / `unmask`.

const { requested } = require('./lib/level');

function loadNative() {
  if (requested === 'js' || requested === 'wasm') return null;
  try {
    return require('./lib/native');
  } catch {
    return null;
  }
}

const native = loadNative();

if (native === null) {
  // './portable.js' by its full name: rollup's node-resolve tries './portable.mjs' first for './portable'.
  module.exports = requested === 'js' ? jsTier() : require('./portable.js');
} else {
  module.exports = withNative(native);
}

function jsTier() {
  const { mask, unmask, backend, backendFrom } = require('./lib/fallback');
  return { mask, unmask, backend, backendFrom };
}

function withNative({ bound, backend }) {
  const fallback = require('./lib/fallback');
  const { isUint8Array, isByteKey, keyWord, hasExactly, refusingImmutable } = require('./lib/checks');
  const { nativeFrom, backendFrom } = require('./lib/thresholds');
  const { mask: MASK_NATIVE_FROM, unmask: UNMASK_NATIVE_FROM } = nativeFrom;
  const { mask: nativeMask, unmask: nativeUnmask, maskBlock, unmaskBlock } = bound;
  const { mask: jsMask, unmask: jsUnmask, xorInPlace } = fallback;

  // A byte key, offset and length reach the addon without a Node-API call each: written into this
  // environment's block, a Float64Array over a SharedArrayBuffer that only this module holds (memory no
  // one can detach or move: see src/binding/block.rs), and checked there after they are read like any
  // argument. The addon adopts one block per environment; if another was offered first, every call takes
  // the addon's checked entries instead.
  const offered = typeof SharedArrayBuffer === 'function' ? new Float64Array(new SharedArrayBuffer(32)) : undefined;
  const block = offered !== undefined && bound.useBlock(offered) === true ? offered : undefined;

  /**
   * Masks `length` bytes of `source` into `output` at `offset`:
   * `output[offset + i] = source[i] ^ mask[i & 3]`.
   */
  const mask = (source, mask, output, offset, length) => {
    // Numbers only past here: a block slot would convert anything else (running valueOf), not refuse it.
    if (typeof length !== 'number' || typeof offset !== 'number') {
      nativeMask(source, mask, output, offset, length);
    } else if (length < MASK_NATIVE_FROM) {
      jsMask(source, mask, output, offset, length);
    } else if (block === undefined || !isByteKey(mask)) {
      // An Array key runs its getters when read: the addon reads it, then checks everything else.
      nativeMask(source, mask, output, offset, length);
    } else if (source === output && offset === 0 && isUint8Array(source) && hasExactly(source, length)) {
      // ws masks whole buffers in place. That is an unmask: one view for the addon to look up, not two.
      block[2] = keyWord(mask[0], mask[1], mask[2], mask[3]);
      unmaskBlock(source);
    } else {
      block[0] = offset;
      block[1] = length;
      block[2] = keyWord(mask[0], mask[1], mask[2], mask[3]);
      maskBlock(source, output);
    }
  };

  /** Unmasks `buffer` in place: `buffer[i] ^= mask[i & 3]`. */
  const unmask = (buffer, mask) => {
    if (isUint8Array(buffer) && buffer[UNMASK_NATIVE_FROM - 1] === undefined) {
      // Short: a JavaScript loop, without checking again what was just checked.
      if (isByteKey(mask)) xorInPlace(buffer, mask[0], mask[1], mask[2], mask[3]);
      else jsUnmask(buffer, mask);
    } else if (block !== undefined && isByteKey(mask)) {
      block[2] = keyWord(mask[0], mask[1], mask[2], mask[3]);
      unmaskBlock(buffer);
    } else {
      nativeUnmask(buffer, mask);
    }
  };

  return refusingImmutable({ mask, unmask, backend, backendFrom: backendFrom(backend, nativeFrom) });
}
