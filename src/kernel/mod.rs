//! The masking kernel: `dst[i] = src[i] ^ key[i & 3]` for `i < len` (RFC 6455 §5.3), with SIMD.
//!
//! This module knows nothing of Node-API; the binding layer (`crate::binding`) checks every bound once and
//! then hands raw pointers here. Raw pointers, not slices: ws masks in place (`mask(data, key, data, 0, n)`),
//! and a `&[u8]` beside a `&mut [u8]` over the same bytes would be undefined behaviour.
//!
//! ```text
//! Kernel::best(cap)                             # the widest level this CPU runs, at most `cap`: chosen
//!                                               #   once per environment by the addon, once by wasm
//! kernel.mask_raw(src, dst, len, key):
//!     if len < SHORT: xor_key<u64>(...)         # too short to pay for an indirect call
//!     else: xor_key<V>(...)                     # V: the kernel's level (its #[target_feature] shell)
//!
//! xor_key<V>(src, dst, len, key):               # V: a vector of B bytes (64 avx512, 32 avx2 or 2 x simd128, 16 sse2/neon, 8 u64)
//!     if src < dst < src + len:                 # output starts inside the source, past its start:
//!         byte loop, forward; return            #   each step may read what an earlier step wrote
//!     if len < B: the same with B/2 or B/4 bytes, else 8-byte words, else bytes
//!     head = load(src) ^ key                    # both edges are loaded before anything is stored, so an
//!     tail = load(src + len - B) ^ key>>(len-B) #   in-place or backward-overlapping call reads only
//!     i = bytes until dst + i is B-aligned      #   original bytes; they are stored last and rewrite
//!     while i + 4B <= len: 4 x (load, xor, aligned store); i += 4B    # the overlap with equal values
//!     while i + B <= len:  load, xor, aligned store; i += B
//!                                               # x86-64, len >= 8 MiB, ranges apart: streaming
//!                                               #   (non-temporal) stores, then sfence
//!     store(dst, head); store(dst + len - B, tail)
//! ```
//!
//! A key "rotated by n" is the key word for byte `n`: `key[n & 3], key[(n + 1) & 3], …`.

#[cfg(target_arch = "aarch64")]
mod aarch64;
mod generic;
#[cfg(target_arch = "wasm32")]
mod wasm32;
#[cfg(target_arch = "x86_64")]
mod x86_64;

pub use generic::xor_bytes as reference;

/// Below this many bytes the portable word loop runs directly, without the indirect call.
const SHORT: usize = 16;

/// One implementation of the kernel, with the contract of [`mask_raw`].
type KernelFn = unsafe fn(src: *const u8, dst: *mut u8, len: usize, key: [u8; 4]);

/// An instruction-set level the kernel can run at, from the portable word loop up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// Portable 8-byte word loop; runs everywhere.
    Scalar,
    /// 16-byte SSE2 vectors (the x86-64 baseline).
    Sse2,
    /// 32-byte AVX2 vectors.
    Avx2,
    /// 64-byte AVX-512 vectors (AVX-512F and AVX-512BW).
    Avx512,
    /// 16-byte NEON vectors (the aarch64 baseline).
    Neon,
    /// WebAssembly SIMD (wasm32 with simd128): pairs of 16-byte vectors.
    Simd128,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 6] = [
        Level::Scalar,
        Level::Sse2,
        Level::Neon,
        Level::Simd128,
        Level::Avx2,
        Level::Avx512,
    ];

    /// The name `backend` reports and `BUFFERUTIL_SIMD_LEVEL` takes.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Scalar => "scalar",
            Level::Sse2 => "sse2",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
            Level::Neon => "neon",
            Level::Simd128 => "simd128",
        }
    }

    /// The level with this name, if any; case does not matter.
    pub fn from_name(name: &str) -> Option<Level> {
        Level::ALL
            .into_iter()
            .find(|level| level.name().eq_ignore_ascii_case(name))
    }

    /// How wide the level is; a cap admits every available level of this rank or less.
    const fn rank(self) -> u8 {
        match self {
            Level::Scalar => 0,
            Level::Sse2 | Level::Neon | Level::Simd128 => 1,
            Level::Avx2 => 2,
            Level::Avx512 => 3,
        }
    }

    /// Whether this CPU can run the level.
    pub fn is_available(self) -> bool {
        Kernel::of(self).is_some()
    }
}

/// One level's kernel: the level and its implementation, fixed once made. The only way to one is
/// [`Kernel::of`] or [`Kernel::best`], and both give only a level this CPU can run, which is what makes
/// [`Kernel::mask_raw`] sound to call. The binding keeps one per Node-API environment, so a worker asking
/// for another level never changes the level other threads run at (or their `backend`).
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    level: Level,
    run: KernelFn,
}

impl Kernel {
    /// The kernel of `level`, if this CPU can run it. Detection is std's, cached by std after the first
    /// question.
    pub fn of(level: Level) -> Option<Kernel> {
        let run: KernelFn = match level {
            Level::Scalar => generic::xor_key_scalar,
            #[cfg(target_arch = "x86_64")]
            Level::Sse2 => x86_64::xor_key_sse2,
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 if std::is_x86_feature_detected!("avx2") => x86_64::xor_key_avx2,
            #[cfg(target_arch = "x86_64")]
            Level::Avx512
                if std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512bw") =>
            {
                x86_64::xor_key_avx512
            }
            #[cfg(target_arch = "aarch64")]
            Level::Neon => aarch64::xor_key_neon,
            // No runtime detection exists in WebAssembly; see `wasm32`.
            #[cfg(target_arch = "wasm32")]
            Level::Simd128 => wasm32::xor_key_simd128,
            _ => return None,
        };
        Some(Kernel { level, run })
    }

    /// The kernel of the widest level this CPU can run whose rank is at most `cap`'s (any, without a cap).
    pub fn best(cap: Option<Level>) -> Kernel {
        let limit = cap.map_or(u8::MAX, Level::rank);
        Level::ALL
            .into_iter()
            .rev()
            .filter(|level| level.rank() <= limit)
            .find_map(Kernel::of)
            .unwrap_or(Kernel {
                level: Level::Scalar,
                run: generic::xor_key_scalar,
            })
    }

    /// The level this kernel runs at.
    pub fn level(self) -> Level {
        self.level
    }

    /// [`mask_raw`] at this kernel's level: short inputs take the portable word loop, which beats an
    /// indirect call there.
    ///
    /// # Safety
    /// As for [`mask_raw`].
    #[inline(always)]
    pub unsafe fn mask_raw(self, src: *const u8, dst: *mut u8, len: usize, key: [u8; 4]) {
        if len < SHORT {
            // SAFETY: the caller upholds the contract, which `xor_key_scalar` shares.
            unsafe { generic::xor_key_scalar(src, dst, len, key) }
        } else {
            // SAFETY: the caller upholds the contract every `KernelFn` shares; `of` made this kernel only
            // for a level the CPU can run.
            unsafe { (self.run)(src, dst, len, key) }
        }
    }

    /// The level's own code at every length, short ones included: what tests, benchmarks and the fuzzer
    /// hold against the reference.
    ///
    /// # Safety
    /// As for [`mask_raw`].
    pub unsafe fn mask_raw_unshortened(
        self,
        src: *const u8,
        dst: *mut u8,
        len: usize,
        key: [u8; 4],
    ) {
        // SAFETY: as in `mask_raw`.
        unsafe { (self.run)(src, dst, len, key) }
    }
}

/// The widest kernel this CPU runs, chosen on first use and kept: what [`mask_raw`], [`mask`] and
/// [`unmask`] run (the binding keeps one of its own per environment).
fn best() -> Kernel {
    static BEST: std::sync::OnceLock<Kernel> = std::sync::OnceLock::new();
    *BEST.get_or_init(|| Kernel::best(None))
}

/// `dst[i] = src[i] ^ key[i & 3]` for `i < len`, as the forward byte loop computes it.
///
/// # Safety
/// `src` must be valid for reads of `len` bytes and `dst` valid for writes of `len` bytes (any pointer
/// will do when `len` is 0). The two ranges may overlap in any way, including exactly (in place). No
/// reference to either range may be live during the call.
#[inline]
pub unsafe fn mask_raw(src: *const u8, dst: *mut u8, len: usize, key: [u8; 4]) {
    // SAFETY: the caller upholds the contract.
    unsafe { best().mask_raw(src, dst, len, key) }
}

/// `dst[i] = src[i] ^ key[i & 3]` for every byte of `src`.
///
/// # Panics
/// If `dst` is shorter than `src`.
pub fn mask(src: &[u8], dst: &mut [u8], key: [u8; 4]) {
    assert!(dst.len() >= src.len(), "dst is shorter than src");
    // SAFETY: both slices are valid for `src.len()` bytes, and being a `&` and a `&mut`, they do not overlap.
    unsafe { mask_raw(src.as_ptr(), dst.as_mut_ptr(), src.len(), key) }
}

/// `buf[i] ^= key[i & 3]` for every byte of `buf`.
pub fn unmask(buf: &mut [u8], key: [u8; 4]) {
    let ptr = buf.as_mut_ptr();
    // SAFETY: `buf` is valid for reads and writes of its length; in-place calls are allowed.
    unsafe { mask_raw(ptr, ptr, buf.len(), key) }
}

#[cfg(test)]
mod tests;
