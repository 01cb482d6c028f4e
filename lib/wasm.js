'use strict';

// The WebAssembly tier: the Rust kernel (src/kernel/ at its simd128 level, built by `npm run build:wasm`)
// for where the native addon cannot load. Throws when this runtime has no WebAssembly with simd128;
// `portable.js` then uses fallback.js.
//
// JavaScript memory is not the module's linear memory, so each chunk of a payload is copied into a fixed
// scratch there, XORed in place by the kernel and copied out: `TypedArray.prototype.set` twice (memcpy)
// around one SIMD pass: memmove's result, which is the forward loop's except where the output starts inside
// the source. Short payloads, and those layouts (told by `mayOverlapForward`), take
// fallback.js's loop.
//
// Loading checks what can fail (WebAssembly, simd128, the memory) and compiles nothing: the module is
// compiled and instantiated, synchronously, on the first call that needs it. Done at load, that took
// 1.2-1.9 ms of `require` on Node 20 here, against 0.6-0.7 ms now (`npm run bench:wasm`).

const fallback = require('./fallback');
const {
  Bytes,
  checkedMask,
  checkedUnmask,
  hasBytes,
  isByteKey,
  isPlainMask,
  isUint8Array,
  keyWord,
  mayOverlapForward,
  refusingImmutable,
  typedArrayBuffer,
  typedArrayByteOffset,
  typedArrayLength,
  TypedArrayPrototype,
  uncurry,
} = require('./checks');
const { wasmFrom, backendFrom } = require('./thresholds');
// Bytes per trip through the scratch: a multiple of 4, so every chunk starts at key phase 0. As much as
// the scratch holds: each trip costs a view of the source, two set() calls and a call into the module,
// and 64 KiB trips beat 16 KiB ones by 4-8 % at 64 KiB (Node 24/26, no difference at 16 KiB or 1 MiB).
const CHUNK = 64 * 1024;
// Where chunks start in the scratch: half a page in. A copy whose destination is 1-31 bytes past its
// source modulo 4096 runs at 2-5 % of memcpy speed here (4K aliasing, in V8 and JavaScriptCore alike).
// Views mostly sit at small offsets from buffer bases that are page-aligned or 16 bytes past, so half a
// page from those keeps both copies well clear of it. One fixed start, not one at the source's alignment
// (as before): that cost a byteOffset call on every call, and the equally aligned copy in it bought was
// not measurable (64 KiB from byteOffset 1: 0.92x against 0.91x ws-masking, Node 24), while the fixed
// start made 128-256 B masks into a distinct output 8-25 % faster (Node 20, 24).
const HALF_PAGE = 2048;
// The scratch holds a chunk of up to this many bytes there (the module's scratch has 64 more: it was
// laid out for starts up to 63 bytes further in).
const MAX_CHUNK = 64 * 1024;
// Linear memory: 2 fixed pages (scripts/build-wasm.js links the module for exactly that).
const PAGES = 2;

// A module of one function returning a v128 constant: it validates exactly where the engine has
// WebAssembly SIMD, at under half the cost of validating the kernel's module (which compiling repeats).
const SIMD_PROBE = [
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // types: () -> v128
  0x03, 0x02, 0x01, 0x00, // functions: one, of type 0
  0x0a, 0x16, 0x01, 0x14, 0x00, 0xfd, 0x0c, ...new Array(16).fill(0), 0x0b, // code: v128.const 0, end
];

/** The module's memory, or a thrown error saying why this runtime cannot have it. */
function createMemory() {
  if (typeof WebAssembly !== 'object' || WebAssembly === null) throw unavailable('this runtime has no WebAssembly');
  if (!WebAssembly.validate(new Bytes(SIMD_PROBE))) throw unavailable('this runtime has no WebAssembly SIMD (simd128)');
  // Engines reserve guard space with it: where address space is capped, this is what fails.
  return new WebAssembly.Memory({ initial: PAGES, maximum: PAGES });
}

// What the first call that needs the module uses, captured now: globals patched later cannot reach it.
const { Module: WasmModule, Instance: WasmInstance } = WebAssembly;
const fromBase64 = typeof Buffer === 'function' ? Buffer.from.bind(Buffer) : undefined;
const decodeText = typeof atob === 'function' ? atob : undefined;

function decodeBase64(text) {
  if (fromBase64 !== undefined) return fromBase64(text, 'base64');
  const binary = decodeText(text);
  const bytes = new Bytes(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function unavailable(why) {
  const error = new Error(`bufferutil-simd's WebAssembly tier cannot load: ${why}`);
  error.code = 'ERR_BUFFERUTIL_SIMD_NO_WASM';
  return error;
}

const memory = createMemory();
// The memory cannot grow (its maximum is its size), so these views never detach.
const linear = memory.buffer;
const heap = new Bytes(linear);

// The module's kernel entry and where its scratch starts, once `load` has run; null if it failed.
let xorScratch;
let SCRATCH = 0;

/** Compiles and instantiates the module on first use; false (and fallback.js from then on) if it fails. */
function load() {
  try {
    const bytes = decodeBase64(require('./wasm-module'));
    const { exports } = new WasmInstance(new WasmModule(bytes), { env: { memory } });
    const at = exports.scratch_address();
    if (at % 4096 !== 0 || exports.scratch_bytes() < HALF_PAGE + 64 + MAX_CHUNK) throw unavailable('the module does not match wasm.js');
    SCRATCH = at;
    xorScratch = exports.xor_scratch;
  } catch {
    xorScratch = null;
  }
  return xorScratch !== null;
}

// Captured now: a later patch of the prototype cannot reach into a call.
const copy = uncurry(TypedArrayPrototype.set);
const jsMask = fallback.mask;
const jsUnmask = fallback.unmask;
const keyBytes = new Bytes(4);

/**
 * The tier's `mask` and `unmask`: payloads shorter than `maskFrom` / `unmaskFrom` bytes go to fallback.js's
 * loop, the rest through the scratch `chunk` bytes at a time (tests run every size through the module,
 * and through small chunks).
 */
function tier({ maskFrom = wasmFrom.mask, unmaskFrom = wasmFrom.unmask, chunk = CHUNK } = {}) {
  if (!(chunk > 0 && chunk <= MAX_CHUNK && chunk % 4 === 0)) throw new RangeError(`chunk ${chunk} is not a multiple of 4 in 4..${MAX_CHUNK}`);

  // Views of the scratch for the copy out, which needs one of exactly the chunk's length: one for whole
  // chunks, and the last one made for anything shorter.
  let chunkView;
  let lastView;
  let lastLength = 0;

  /** The first `length` bytes of the chunk in the scratch. */
  function scratchView(length) {
    if (length === chunk) return chunkView || (chunkView = new Bytes(linear, SCRATCH + HALF_PAGE, chunk));
    if (length !== lastLength) {
      lastView = new Bytes(linear, SCRATCH + HALF_PAGE, length);
      lastLength = length;
    }
    return lastView;
  }

  /**
   * `out[offset + i] = src[i] ^ key[i & 3]` for `i < length`, as the forward byte loop computes it: through
   * the scratch, or with fallback.js's loop where the output may start inside the source (or the module
   * could not be instantiated). Arguments checked.
   */
  function xorThrough(src, out, offset, length, k0, k1, k2, k3) {
    // Also spares `set` a detached or out-of-bounds view, which it would throw on: those have no bytes.
    if (length === 0) return;
    const overlaps = src === out ? offset > 0 && offset < length : mayOverlapForward(src, out, offset, length);
    if (overlaps || length > chunk || typeof xorScratch !== 'function') {
      xorOther(src, out, offset, length, k0, k1, k2, k3, overlaps);
      return;
    }
    // `src` is a real Uint8Array of at least `length` bytes: an index past them reads undefined exactly
    // when it has no more.
    copy(heap, src[length] === undefined ? src : new Bytes(typedArrayBuffer(src), typedArrayByteOffset(src), length), SCRATCH + HALF_PAGE);
    xorScratch(HALF_PAGE, length, keyWord(k0, k1, k2, k3));
    copy(out, scratchView(length), offset);
  }

  /** `xorThrough`'s other cases, apart so that the common one stays small enough for V8 to inline. */
  function xorOther(src, out, offset, length, k0, k1, k2, k3, overlaps) {
    if (overlaps || (xorScratch === undefined ? !load() : xorScratch === null)) {
      keyBytes[0] = k0;
      keyBytes[1] = k1;
      keyBytes[2] = k2;
      keyBytes[3] = k3;
      jsMask(src, keyBytes, out, offset, length);
      return;
    }
    if (length <= chunk) {
      xorThrough(src, out, offset, length, k0, k1, k2, k3);
      return;
    }
    // Chunk by chunk, front to back: a chunk is read whole before any of it is written, and a write lands
    // only on source bytes already read, since the output does not start inside the source.
    const word = keyWord(k0, k1, k2, k3);
    const srcBuffer = typedArrayBuffer(src);
    const srcAt = typedArrayByteOffset(src);
    for (let done = 0; done < length; done += chunk) {
      const size = length - done < chunk ? length - done : chunk;
      copy(heap, new Bytes(srcBuffer, srcAt + done, size), SCRATCH + HALF_PAGE);
      xorScratch(HALF_PAGE, size, word);
      copy(out, scratchView(size), offset + done);
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
    } else if (isPlainMask(source, mask, output, offset, length)) {
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
    if (isUint8Array(buffer)) {
      if (!hasBytes(buffer, unmaskFrom)) {
        jsUnmask(buffer, mask);
        return;
      }
      if (isByteKey(mask)) {
        xorThrough(buffer, buffer, 0, typedArrayLength(buffer), mask[0], mask[1], mask[2], mask[3]);
        return;
      }
    }
    checkedUnmask(buffer, mask, xorThrough);
  }

  const from = backendFrom('wasm', { mask: maskFrom, unmask: unmaskFrom });
  return refusingImmutable({ mask, unmask, backend: 'wasm', backendFrom: from });
}

// `withOptions` is for tests and benchmarks; the package's entries export only the first four names.
module.exports = { ...tier(), withOptions: tier };
