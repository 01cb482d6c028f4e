//! x86-64 vectors (SSE2, AVX2, AVX-512) and the `#[target_feature]` wrapper of each level.

// Under Miri the streaming stores and sfence are left out (below).
#[cfg_attr(miri, allow(unused_imports))]
use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm256_loadu_si256, _mm256_set1_epi32, _mm256_store_si256,
    _mm256_storeu_si256, _mm256_stream_si256, _mm256_xor_si256, _mm512_loadu_si512,
    _mm512_set1_epi32, _mm512_store_si512, _mm512_storeu_si512, _mm512_stream_si512,
    _mm512_xor_si512, _mm_loadu_si128, _mm_set1_epi32, _mm_sfence, _mm_store_si128,
    _mm_storeu_si128, _mm_stream_si128, _mm_xor_si128,
};

use super::generic::{level, xor_key, Vector};

/// The `Vector` of one x86-64 vector type: the same intrinsics at each width, streaming stores included.
macro_rules! vector {
    ($vector:ty, $bytes:literal, $half:ty, $splat:ident, $load:ident, $store:ident, $aligned:ident,
     $xor:ident, $stream:ident) => {
        impl Vector for $vector {
            const BYTES: usize = $bytes;
            type Half = $half;
            const STREAMS: bool = true;

            #[inline(always)]
            unsafe fn splat(word: u32) -> Self {
                // SAFETY: the caller guarantees the vector's instruction set.
                unsafe { $splat(word as i32) }
            }

            #[inline(always)]
            unsafe fn load_unaligned(src: *const u8) -> Self {
                // SAFETY: the caller guarantees `BYTES` readable bytes and the instruction set.
                unsafe { $load(src.cast()) }
            }

            #[inline(always)]
            unsafe fn store_unaligned(self, dst: *mut u8) {
                // SAFETY: the caller guarantees `BYTES` writable bytes and the instruction set.
                unsafe { $store(dst.cast(), self) }
            }

            #[inline(always)]
            unsafe fn store_aligned(self, dst: *mut u8) {
                debug_assert_eq!(dst as usize % Self::BYTES, 0);
                // SAFETY: the caller guarantees `BYTES` writable bytes aligned to `BYTES`, and the
                // instruction set.
                unsafe { $aligned(dst.cast(), self) }
            }

            #[inline(always)]
            unsafe fn xor(self, other: Self) -> Self {
                // SAFETY: the caller guarantees the instruction set.
                unsafe { $xor(self, other) }
            }

            #[inline(always)]
            unsafe fn store_streaming(self, dst: *mut u8) {
                debug_assert_eq!(dst as usize % Self::BYTES, 0);
                // Streaming stores are inline assembly, which Miri does not run: there the aligned store,
                // the same bytes at the same address.
                #[cfg(not(miri))]
                let store = $stream;
                #[cfg(miri)]
                let store = $aligned;
                // SAFETY: as for `store_aligned`.
                unsafe { store(dst.cast(), self) }
            }

            #[inline(always)]
            unsafe fn stream_fence() {
                // SAFETY: SSE (sfence) is part of x86-64.
                #[cfg(not(miri))]
                unsafe {
                    _mm_sfence()
                }
                // Miri has no sfence; a sequentially consistent fence orders the streamed stores for it.
                #[cfg(miri)]
                core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst);
            }
        }
    };
}

vector! { __m128i, 16, u64, _mm_set1_epi32, _mm_loadu_si128, _mm_storeu_si128, _mm_store_si128,
_mm_xor_si128, _mm_stream_si128 }
vector! { __m256i, 32, __m128i, _mm256_set1_epi32, _mm256_loadu_si256, _mm256_storeu_si256,
_mm256_store_si256, _mm256_xor_si256, _mm256_stream_si256 }
vector! { __m512i, 64, __m256i, _mm512_set1_epi32, _mm512_loadu_si512, _mm512_storeu_si512,
_mm512_store_si512, _mm512_xor_si512, _mm512_stream_si512 }

level!(xor_key_sse2, xor_in_place_sse2, __m128i, "sse2");
level!(xor_key_avx2, xor_in_place_avx2, __m256i, "avx2");

/// The `avx512` level, asking for AVX-512BW besides the F it uses: F-only parts (Xeon Phi) run 512-bit code
/// slowly, better served by AVX2. From `stream_from` bytes it runs over 256-bit vectors, as 512-bit streaming
/// stores lose to 256-bit ones beyond the cache on some CPUs (benchmark/README.md).
///
/// # Safety
/// As for [`super::Kernel::mask_raw`]; and the CPU must support AVX-512F, AVX-512BW and AVX2.
#[target_feature(enable = "avx512f,avx512bw,avx2")]
pub(super) unsafe fn xor_key_avx512(
    src: *const u8,
    dst: *mut u8,
    len: usize,
    key: [u8; 4],
    stream_from: usize,
) {
    if len >= stream_from {
        // SAFETY: the caller's contract; AVX2 is enabled here.
        unsafe { xor_key::<__m256i>(src, dst, len, key, stream_from) }
    } else {
        // SAFETY: the caller's contract; AVX-512F (and with it AVX2) is enabled here.
        unsafe { xor_key::<__m512i>(src, dst, len, key, stream_from) }
    }
}

level!(in_place xor_in_place_avx512, __m512i, "avx512f,avx512bw,avx2");
