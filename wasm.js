'use strict';

// The WebAssembly tier: the Rust kernel (src/kernel/ at its simd128 level, built by `npm run build:wasm`)
// for where the native addon cannot load. Throws when this runtime has no WebAssembly with simd128;
// `index.js` then uses fallback.js.
//
// JavaScript memory is not the module's linear memory, so each chunk of a payload is copied into a fixed
// scratch there, XORed in place by the kernel and copied out: `TypedArray.prototype.set` twice (memcpy)
// around one SIMD pass. Short payloads, and an output that starts inside its source (where only the
// forward byte loop gives the forward byte loop's result), take fallback.js's loop.

const fallback = require('./fallback');
const {
  uncurry,
  TypedArrayPrototype,
  typedArrayKind,
  typedArrayLength,
  typedArrayBuffer,
  typedArrayByteOffset,
  checkedMask,
  checkedUnmask,
} = require('./checks');
const moduleBase64 = require('./wasm-module');

// From these sizes (bytes) the module beats fallback.js's loop, per runtime, as measured with
// `npm run bench:wasm -- --crossover` (Node 20-26 at 96-128 B; Deno's loop is quicker in place; each call
// to an engine accessor costs ~40 ns more in Bun's JavaScriptCore).
const [MASK_WASM_FROM, UNMASK_WASM_FROM] =
  typeof Bun !== 'undefined' ? [512, 512] : typeof Deno !== 'undefined' ? [128, 192] : [128, 128];
// Bytes per trip through the scratch: a multiple of 4, so every chunk starts at key phase 0.
const CHUNK = 16 * 1024;
// Where chunks start in the scratch (plus the source's offset mod 64): half a page in. A copy whose
// destination is 1-31 bytes past its source modulo 4096 runs at 2-5 % of memcpy speed here (4K
// aliasing, in V8 and JavaScriptCore alike). Views mostly sit at small offsets from buffer bases that
// are page-aligned or 16 bytes past, so half a page from those keeps both copies well clear of it.
const HALF_PAGE = 2048;
// The scratch holds a chunk of up to this many bytes at any of those starts.
const MAX_CHUNK = 64 * 1024;

/** The module's exports, or a thrown error saying why there are none. */
function instantiate() {
  if (typeof WebAssembly !== 'object' || WebAssembly === null) throw unavailable('this runtime has no WebAssembly');
  const bytes = decodeBase64(moduleBase64);
  // The module is one simd128 kernel: it validates exactly where the engine has WebAssembly SIMD.
  if (!WebAssembly.validate(bytes)) throw unavailable('this runtime has no WebAssembly SIMD (simd128)');
  // Synchronous: 1.7 KB compile in well under a millisecond, and `require` stays synchronous.
  return new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports;
}

function decodeBase64(text) {
  if (typeof Buffer === 'function') return Buffer.from(text, 'base64');
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function unavailable(why) {
  const error = new Error(`bufferutil-simd's WebAssembly tier cannot load: ${why}`);
  error.code = 'ERR_BUFFERUTIL_SIMD_NO_WASM';
  return error;
}

const { memory, scratch_address: scratchAddress, scratch_bytes: scratchBytes, xor_scratch: xorScratch } = instantiate();
// The memory cannot grow (its maximum is its size), so these views never detach.
const linear = memory.buffer;
const heap = new Uint8Array(linear);
const SCRATCH = scratchAddress();
if (SCRATCH % 4096 !== 0 || scratchBytes() < HALF_PAGE + 64 + MAX_CHUNK) throw unavailable('the module does not match wasm.js');

// Captured now: a later patch of the prototype cannot reach into a call.
const copy = uncurry(TypedArrayPrototype.set);
const Bytes = Uint8Array;
const jsMask = fallback.mask;
const jsUnmask = fallback.unmask;
const keyBytes = new Bytes(4);

/**
 * The tier's `mask` and `unmask`: payloads shorter than `maskFrom` / `unmaskFrom` bytes go to fallback.js's
 * loop, the rest through the scratch `chunk` bytes at a time (tests run every size through the module,
 * and through small chunks).
 */
function tier({ maskFrom = MASK_WASM_FROM, unmaskFrom = UNMASK_WASM_FROM, chunk = CHUNK } = {}) {
  if (!(chunk > 0 && chunk <= MAX_CHUNK && chunk % 4 === 0)) throw new RangeError(`chunk ${chunk} is not a multiple of 4 in 4..${MAX_CHUNK}`);

  // Views of the scratch for the copy out, which needs one of exactly the chunk's length: one per start
  // for whole chunks, and the last one made for anything shorter.
  const chunkViews = [];
  let lastView = new Bytes(linear, SCRATCH, 0);
  let lastAt = 0;
  let lastLength = 0;

  /** Scratch bytes `at .. at + length` (`at` counted from the scratch's start). */
  function scratchView(at, length) {
    if (length === chunk) return chunkViews[at] || (chunkViews[at] = new Bytes(linear, SCRATCH + at, chunk));
    if (at !== lastAt || length !== lastLength) {
      lastView = new Bytes(linear, SCRATCH + at, length);
      lastAt = at;
      lastLength = length;
    }
    return lastView;
  }

  /**
   * `out[offset + i] = src[i] ^ key[i & 3]` for `i < length`, as the forward byte loop computes it: through
   * the scratch, or with fallback.js's loop where the output starts inside the source. Arguments checked.
   */
  function xorThrough(src, out, offset, length, k0, k1, k2, k3) {
    // Also spares `set` a detached or out-of-bounds view, which it would throw on: those have no bytes.
    if (length === 0) return;
    const srcAt = typedArrayByteOffset(src);
    let gap = offset;
    if (src !== out) {
      gap = typedArrayBuffer(src) === typedArrayBuffer(out) ? typedArrayByteOffset(out) + offset - srcAt : 0;
    }
    if (gap > 0 && gap < length) {
      keyBytes[0] = k0;
      keyBytes[1] = k1;
      keyBytes[2] = k2;
      keyBytes[3] = k3;
      jsMask(src, keyBytes, out, offset, length);
      return;
    }
    // Half a page in, at the source's alignment: the copy in moves equally aligned bytes.
    const at = HALF_PAGE + (srcAt & 63);
    const word = k0 | (k1 << 8) | (k2 << 16) | (k3 << 24);
    if (length <= chunk) {
      copy(heap, typedArrayLength(src) === length ? src : new Bytes(typedArrayBuffer(src), srcAt, length), SCRATCH + at);
      xorScratch(at, length, word);
      copy(out, scratchView(at, length), offset);
      return;
    }
    // Chunk by chunk, front to back: a chunk is read whole before any of it is written, and a write lands
    // only on source bytes already read, since the output does not start inside the source.
    const srcBuffer = typedArrayBuffer(src);
    for (let done = 0; done < length; done += chunk) {
      const size = length - done < chunk ? length - done : chunk;
      copy(heap, new Bytes(srcBuffer, srcAt + done, size), SCRATCH + at);
      xorScratch(at, size, word);
      copy(out, scratchView(at, size), offset + done);
    }
  }

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
    if (typeof length === 'number' && length < maskFrom) {
      jsMask(source, mask, output, offset, length);
    } else if (
      typedArrayKind(source) === 'Uint8Array' &&
      typedArrayKind(output) === 'Uint8Array' &&
      typedArrayKind(mask) === 'Uint8Array' &&
      typedArrayLength(mask) >= 4 &&
      Number.isInteger(offset) &&
      Number.isInteger(length) &&
      offset >= 0 &&
      length >= 0 &&
      length <= typedArrayLength(source) &&
      offset + length <= typedArrayLength(output)
    ) {
      xorThrough(source, output, offset, length, mask[0], mask[1], mask[2], mask[3]);
    } else {
      checkedMask(source, mask, output, offset, length, xorThrough);
    }
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
    if (typedArrayKind(buffer) === 'Uint8Array') {
      const length = typedArrayLength(buffer);
      if (length < unmaskFrom) {
        jsUnmask(buffer, mask);
        return;
      }
      if (typedArrayKind(mask) === 'Uint8Array' && typedArrayLength(mask) >= 4) {
        xorThrough(buffer, buffer, 0, length, mask[0], mask[1], mask[2], mask[3]);
        return;
      }
    }
    checkedUnmask(buffer, mask, xorThrough);
  }

  return { mask, unmask, backend: 'wasm' };
}

// `withOptions` is for tests and benchmarks; the package's entries export only the first three names.
module.exports = { ...tier(), withOptions: tier };
