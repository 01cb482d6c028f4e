//! aarch64: NEON is part of the baseline, so its level needs no runtime detection.

use core::arch::aarch64::{
    uint8x16_t, vdupq_n_u32, veorq_u8, vld1q_u8, vreinterpretq_u8_u32, vst1q_u8,
};

use super::generic::{level, Vector};

impl Vector for uint8x16_t {
    const BYTES: usize = 16;
    type Half = u64;

    #[inline(always)]
    unsafe fn splat(word: u32) -> Self {
        // SAFETY: NEON is part of the aarch64 baseline.
        unsafe { vreinterpretq_u8_u32(vdupq_n_u32(word)) }
    }

    #[inline(always)]
    unsafe fn load_unaligned(src: *const u8) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes; `vld1q_u8` needs no alignment.
        unsafe { vld1q_u8(src) }
    }

    #[inline(always)]
    unsafe fn store_unaligned(self, dst: *mut u8) {
        // SAFETY: the caller guarantees 16 writable bytes; `vst1q_u8` needs no alignment.
        unsafe { vst1q_u8(dst, self) }
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: NEON is part of the aarch64 baseline.
        unsafe { veorq_u8(self, other) }
    }
}

level!(xor_key_neon, xor_in_place_neon, uint8x16_t, "neon");
