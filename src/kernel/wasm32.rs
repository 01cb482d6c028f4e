//! wasm32: the 128-bit `v128` vector of WebAssembly SIMD (simd128), and a pair of them as the level's
//! vector: engines store at most 16 bytes at a time, so the algorithm's 4-way unrolled loop over pairs
//! (128 bytes per trip) is what reaches the engines' store limit (benchmark/README.md).
//!
//! No runtime detection exists: a module with one simd128 instruction fails to compile without it, so the
//! level is always available here, and the JavaScript loader asks `WebAssembly.validate` first.

use core::arch::wasm32::{u32x4_splat, v128, v128_load, v128_store, v128_xor};

use super::generic::{level, Vector};

impl Vector for v128 {
    const BYTES: usize = 16;
    type Half = u64;

    #[inline(always)]
    unsafe fn splat(word: u32) -> Self {
        // Lanes are little-endian, as is linear memory: each lane holds `word`'s bytes in memory order.
        u32x4_splat(word)
    }

    #[inline(always)]
    unsafe fn load_unaligned(src: *const u8) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes; `v128.load` needs no alignment.
        unsafe { v128_load(src.cast()) }
    }

    #[inline(always)]
    unsafe fn store_unaligned(self, dst: *mut u8) {
        // SAFETY: the caller guarantees 16 writable bytes; `v128.store` needs no alignment.
        unsafe { v128_store(dst.cast(), self) }
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        v128_xor(self, other)
    }
}

/// Two `v128`s as one 32-byte vector.
#[derive(Clone, Copy)]
pub(super) struct V128x2(v128, v128);

impl Vector for V128x2 {
    const BYTES: usize = 32;
    type Half = v128;

    #[inline(always)]
    unsafe fn splat(word: u32) -> Self {
        let lane = u32x4_splat(word);
        V128x2(lane, lane)
    }

    #[inline(always)]
    unsafe fn load_unaligned(src: *const u8) -> Self {
        // SAFETY: the caller guarantees 32 readable bytes, 16 at `src` and 16 after them.
        unsafe { V128x2(v128_load(src.cast()), v128_load(src.add(16).cast())) }
    }

    #[inline(always)]
    unsafe fn store_unaligned(self, dst: *mut u8) {
        // SAFETY: the caller guarantees 32 writable bytes, 16 at `dst` and 16 after them.
        unsafe {
            v128_store(dst.cast(), self.0);
            v128_store(dst.add(16).cast(), self.1);
        }
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        V128x2(v128_xor(self.0, other.0), v128_xor(self.1, other.1))
    }
}

level!(xor_key_simd128, xor_in_place_simd128, V128x2, "simd128");
