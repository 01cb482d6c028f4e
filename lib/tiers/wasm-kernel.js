'use strict';

// The WebAssembly tier's kernel: the Rust kernel at simd128 (`npm run build:wasm`); throws where the runtime has no
// WebAssembly SIMD. JavaScript memory is not the module's: each chunk is copied into a scratch, XORed, copied out.
// lib/tiers/wasm.js is the tier; tests take `wasmKernel` with small chunks from here.

const { Bytes, getter, typedArrayBuffer, typedArrayByteOffset, TypedArrayPrototype, uncurry } = require('../views');
const { mayOverlapForward, xorKeyWord } = require('../loops');
const { routeBytes } = require('../route');

// Bytes per trip through the scratch (a multiple of 4: each chunk starts at key phase 0).
const MAX_CHUNK = 64 * 1024;
// Half a page into the scratch: views mostly sit just past page-aligned bases, and a copy 1-31 bytes past
// its source modulo 4096 is many times slower (4K aliasing).
const HALF_PAGE = 2048;
// Linear memory: 2 fixed pages, as scripts/build-wasm.js links the module.
const PAGES = 2;

if (typeof WebAssembly !== 'object' || WebAssembly === null) throw new Error('this runtime has no WebAssembly');
// Decoded and validated now: nothing patched later can substitute it, and the tier is taken only where the engine
// has every feature the module uses (simd128 above all).
const binary = atob(require('./wasm-module'));
const MODULE = new Bytes(binary.length);
for (let i = 0; i < binary.length; i++) MODULE[i] = binary.charCodeAt(i);
if (!WebAssembly.validate(MODULE)) throw new Error('this runtime cannot run the module (no WebAssembly SIMD?)');
const { Module: WasmModule, Instance: WasmInstance } = WebAssembly;
const instanceExports = getter(WasmInstance.prototype, 'exports');
// Where address space is capped, its guard space is what fails. It cannot grow, so views of it never detach.
const memory = new WebAssembly.Memory({ initial: PAGES, maximum: PAGES });
const linear = memory.buffer;
const heap = new Bytes(linear);
const copy = uncurry(TypedArrayPrototype.set);

/** Copies `bytes` into the scratch; false where the engine refuses to copy out of an immutable buffer. */
function copyIn(bytes) {
  try {
    copy(heap, bytes, SCRATCH + HALF_PAGE);
    return true;
  } catch {
    return false;
  }
}

// The module's entry and scratch once `load` has run; null if it failed.
let xorScratch;
let SCRATCH = 0;

/** Compiles the module on first use; false (and the JavaScript loops from then on) if that fails. */
function load() {
  try {
    const exports = instanceExports(new WasmInstance(new WasmModule(MODULE), { env: { memory } }));
    SCRATCH = exports.scratch_address();
    const fits = SCRATCH % 4096 === 0 && exports.scratch_bytes() >= HALF_PAGE + MAX_CHUNK;
    xorScratch = fits ? exports.xor_scratch : null;
  } catch {
    xorScratch = null;
  }
  return xorScratch !== null;
}

/** The tier, `chunk` bytes at a time through the scratch (tests send every size through it in small chunks). */
function wasmKernel(chunk = MAX_CHUNK) {
  if (!(chunk > 0 && chunk <= MAX_CHUNK && chunk % 4 === 0))
    throw new RangeError(`chunk ${chunk} is not a multiple of 4 in 4..${MAX_CHUNK}`);

  // The copy out takes a view of exactly the chunk's length: one for whole chunks, the last one made.
  let chunkView;
  let lastView;
  let lastLength = 0;

  /** The first `length` bytes of the chunk in the scratch. */
  function scratchView(length) {
    if (length === chunk) {
      chunkView ??= new Bytes(linear, SCRATCH + HALF_PAGE, chunk);
      return chunkView;
    }
    if (length !== lastLength) {
      lastView = new Bytes(linear, SCRATCH + HALF_PAGE, length);
      lastLength = length;
    }
    return lastView;
  }

  /** `out[offset + i] = src[i] ^ key[i & 3]` over checked Uint8Arrays, as the forward loop. */
  function xorThrough(src, out, offset, length, word) {
    // Also spares `set` a detached view, which it would throw on.
    if (length === 0) return;
    const overlaps = src === out ? offset > 0 && offset < length : mayOverlapForward(src, out, offset, length);
    if (overlaps || length > chunk || typeof xorScratch !== 'function') {
      xorOther(src, out, offset, length, word, overlaps);
      return;
    }
    // `src` has at least `length` bytes: an index past them reads undefined exactly when it has no more.
    if (!copyIn(src[length] === undefined ? src : new Bytes(typedArrayBuffer(src), typedArrayByteOffset(src), length))) {
      xorOther(src, out, offset, length, word, true);
      return;
    }
    xorScratch(HALF_PAGE, length, word);
    copy(out, scratchView(length), offset);
  }

  /** `xorThrough`'s other cases, apart so that the common one stays small enough for V8 to inline. */
  function xorOther(src, out, offset, length, word, overlaps) {
    if (overlaps || (xorScratch === undefined ? !load() : xorScratch === null)) {
      xorKeyWord(src, out, offset, length, word);
      return;
    }
    // Front to back: a chunk is read whole before it is written, and writes land only on source bytes read.
    const srcBuffer = typedArrayBuffer(src);
    const srcAt = typedArrayByteOffset(src);
    for (let done = 0; done < length; done += chunk) {
      const size = length - done < chunk ? length - done : chunk;
      // Only the first copy can fail, before anything is written.
      if (!copyIn(new Bytes(srcBuffer, srcAt + done, size))) {
        xorOther(src, out, offset, length, word, true);
        return;
      }
      xorScratch(HALF_PAGE, size, word);
      copy(out, scratchView(size), offset + done);
    }
  }

  return { backend: 'wasm', tier: (from) => routeBytes('wasm', from, xorThrough) };
}

module.exports = { wasmKernel };
