//! The WebAssembly entry points (`npm run build:wasm`), which `lib/tiers/wasm-kernel.js` drives over a fixed
//! scratch (docs/architecture.md): they touch nothing outside it whatever numbers they are given.

use crate::kernel::Kernel;

/// Bytes of scratch: a chunk of up to 64 KiB, starting half a page in (see `wasm-kernel.js`).
const SCRATCH_BYTES: usize = 2048 + 64 * 1024;

/// The scratch, a static (memory never grows, so JavaScript's view of it never detaches), page-aligned so
/// that its offsets modulo 4096 are those of its addresses.
#[repr(C, align(4096))]
struct Scratch([u8; SCRATCH_BYTES]);

// Zero-initialised, so it takes no bytes in the module.
static mut SCRATCH: Scratch = Scratch([0; SCRATCH_BYTES]);

/// Where the scratch starts in linear memory.
#[no_mangle]
pub extern "C" fn scratch_address() -> *mut u8 {
    (&raw mut SCRATCH).cast()
}

/// How many bytes the scratch holds.
#[no_mangle]
pub extern "C" fn scratch_bytes() -> usize {
    SCRATCH_BYTES
}

/// XORs scratch bytes `at .. at + len` in place with `key` (its little-endian bytes are the key bytes,
/// in order) as the forward loop from `at` would; returns `len`, or 0 without touching anything when the
/// range does not lie inside the scratch.
#[no_mangle]
pub extern "C" fn xor_scratch(at: usize, len: usize, key: u32) -> usize {
    if at > SCRATCH_BYTES || len > SCRATCH_BYTES - at {
        return 0;
    }
    // The module is single-threaded and its only callers are these entry points, which hold no reference
    // to the scratch: the raw pointer is the only access.
    let start = scratch_address().wrapping_add(at);
    // SAFETY: `at + len <= SCRATCH_BYTES`, so `start .. start + len` lies in the scratch, valid for reads
    // and writes, and in place is within `mask_raw`'s contract; no reference to it is live.
    unsafe { Kernel::best(None).mask_raw(start, start, len, key.to_le_bytes()) };
    len
}
