'use strict';

const fallback = require('./lib/fallback');
const { isUint8Array } = require('./lib/checks');
const { requested } = require('./lib/level');

/**
 * Below these sizes (bytes) the JavaScript loop beats a native call; above, the addon. Measured per runtime
 * with `npm run bench` (see benchmark/README.md): the crossover moves with each engine's call cost.
 * Keyed on what is known at load: Bun, or Node's major version (nearest line below for one not listed).
 */
const THRESHOLDS = {
  bun: { mask: 176, unmask: 120 },
  20: { mask: 64, unmask: 48 },
  22: { mask: 80, unmask: 72 },
  24: { mask: 80, unmask: 80 },
  26: { mask: 80, unmask: 72 },
};

function loadNative() {
  if (requested === 'js' || requested === 'wasm') return null;
  try {
    return require('./lib/native');
  } catch {
    return null;
  }
}

function thresholds() {
  if (typeof Bun !== 'undefined') return THRESHOLDS.bun;
  const major = Number(String(process.versions?.node).split('.')[0]);
  const known = Object.keys(THRESHOLDS).filter((key) => Number(key) <= major).map(Number);
  return THRESHOLDS[known.length ? Math.max(...known) : 20];
}

const native = loadNative();

if (native === null) {
  // Without the addon: WebAssembly SIMD where the runtime has it (portable.js), else JavaScript.
  module.exports = requested === 'js' ? { mask: fallback.mask, unmask: fallback.unmask, backend: 'js' } : require('./portable');
} else {
  const { mask: MASK_NATIVE_FROM, unmask: UNMASK_NATIVE_FROM } = thresholds();
  const nativeMask = native.mask;
  const nativeUnmask = native.unmask;
  const jsMask = fallback.mask;
  const jsUnmask = fallback.unmask;

  // On a real Uint8Array an index reads the view's own bytes (never a property, never user code), so
  // `view[n - 1] !== undefined` proves it has n bytes, whatever its own `length` property says.
  const isByteKey = (key) => isUint8Array(key) && key[3] !== undefined;
  const keyWord = (key) => key[0] | (key[1] << 8) | (key[2] << 16) | (key[3] << 24);
  /** Whether a real Uint8Array has exactly `length` bytes (any number: false unless it is that count). */
  const isWhole = (view, length) => view[length] === undefined && (length === 0 || view[length - 1] !== undefined);

  // A byte key, offset and length reach the addon without a Node-API call each: written into this
  // environment's block, which only this module holds, and checked there after they are read like any
  // argument. Without a block (a runtime that refuses external memory, or someone took it first) the
  // key goes as one integer argument and offset and length as arguments.
  const block = typeof native.takeBlock === 'function' ? native.takeBlock() : undefined;
  const hasBlock = block instanceof Float64Array && isWhole(block, 4);
  const maskBlock = native.maskBlock;
  const unmaskBlock = native.unmaskBlock;
  const maskWord = native.maskWord;
  const unmaskWord = native.unmaskWord;

  const unmaskByteKey = hasBlock
    ? (buffer, key) => {
        block[2] = keyWord(key);
        unmaskBlock(buffer);
      }
    : (buffer, key) => unmaskWord(buffer, keyWord(key));
  const maskByteKey = hasBlock
    ? (source, key, output, offset, length) => {
        block[0] = offset;
        block[1] = length;
        block[2] = keyWord(key);
        maskBlock(source, output);
      }
    : (source, key, output, offset, length) => maskWord(source, keyWord(key), output, offset, length);

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
    } else if (!isByteKey(mask)) {
      // An Array key runs its getters when read: the addon reads it, then checks everything else.
      nativeMask(source, mask, output, offset, length);
    } else if (source === output && offset === 0 && isUint8Array(source) && isWhole(source, length)) {
      // ws masks whole buffers in place. That is an unmask: one view for the addon to look up, not two.
      unmaskByteKey(source, mask);
    } else {
      maskByteKey(source, mask, output, offset, length);
    }
  };

  /** Unmasks `buffer` in place: `buffer[i] ^= mask[i & 3]`. */
  const unmask = (buffer, mask) => {
    if (isUint8Array(buffer) && buffer[UNMASK_NATIVE_FROM - 1] === undefined) jsUnmask(buffer, mask);
    else if (isByteKey(mask)) unmaskByteKey(buffer, mask);
    else nativeUnmask(buffer, mask);
  };

  module.exports = { mask, unmask, backend: native.backend };
}
