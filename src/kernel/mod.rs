//! The masking kernel: `dst[i] = src[i] ^ key[i & 3]` for `i < len` (RFC 6455 §5.3), with SIMD.
//!
//! This module knows nothing of Node-API; the binding layer (`crate::binding`) checks every bound once and
//! then hands raw pointers here. Raw pointers, not slices: ws masks in place (`mask(data, key, data, 0, n)`),
//! and a `&[u8]` beside a `&mut [u8]` over the same bytes would be undefined behaviour.
//!
//! ```text
//! mask(src, dst, len, key):
//!     if src < dst < src + len:                 # output starts inside the source, past its start
//!         byte loop, forward                    # each step may read what an earlier step wrote:
//!         return                                #   only the reference loop itself gives its result
//!     if len < SHORT: words and bytes           # too short to pay for an indirect call
//!     else: KERNEL(src, dst, len, key)          # best level for this CPU, chosen on first use
//!
//! xor_key<V>(src, dst, len, key):               # V: a vector of B bytes (64 avx512, 32 avx2 or 2 x simd128, 16 sse2/neon, 8 u64)
//!     if len < B: the same with B/2 or B/4 bytes, else 8-byte words, else bytes
//!     head = load(src) ^ key                    # both edges are loaded before anything is stored, so an
//!     tail = load(src + len - B) ^ key>>(len-B) #   in-place or backward-overlapping call reads only
//!     i = bytes until dst + i is B-aligned      #   original bytes; they are stored last and rewrite
//!     while i + 4B <= len: 4 x (load, xor, aligned store); i += 4B    # the overlap with equal values
//!     while i + B <= len:  load, xor, aligned store; i += B
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

use core::sync::atomic::{AtomicPtr, AtomicU8, Ordering};

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

    /// The level's implementation, if this CPU can run it.
    fn kernel(self) -> Option<KernelFn> {
        match self {
            Level::Scalar => Some(generic::xor_key_scalar as KernelFn),
            #[cfg(target_arch = "x86_64")]
            Level::Sse2 => Some(x86_64::xor_key_sse2 as KernelFn),
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 if std::is_x86_feature_detected!("avx2") => {
                Some(x86_64::xor_key_avx2 as KernelFn)
            }
            #[cfg(target_arch = "x86_64")]
            Level::Avx512
                if std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512bw") =>
            {
                Some(x86_64::xor_key_avx512 as KernelFn)
            }
            #[cfg(target_arch = "aarch64")]
            Level::Neon => Some(aarch64::xor_key_neon as KernelFn),
            // No runtime detection exists in WebAssembly; see `wasm32`.
            #[cfg(target_arch = "wasm32")]
            Level::Simd128 => Some(wasm32::xor_key_simd128 as KernelFn),
            _ => None,
        }
    }

    /// Whether this CPU can run the level.
    pub fn is_available(self) -> bool {
        self.kernel().is_some()
    }

    /// The widest level this CPU can run whose rank is at most `cap`'s (any, without a cap).
    pub fn best(cap: Option<Level>) -> Level {
        let limit = cap.map_or(u8::MAX, Level::rank);
        Level::ALL
            .into_iter()
            .rev()
            .find(|level| level.rank() <= limit && level.is_available())
            .unwrap_or(Level::Scalar)
    }

    /// `dst[i] = src[i] ^ key[i & 3]` at this level, or `false` (and nothing done) if this CPU lacks it.
    ///
    /// # Safety
    /// As for [`mask_raw`].
    pub unsafe fn mask_raw(self, src: *const u8, dst: *mut u8, len: usize, key: [u8; 4]) -> bool {
        match self.kernel() {
            Some(kernel) => {
                // SAFETY: the caller upholds `mask_raw`'s contract, which every kernel shares, and
                // `kernel()` returned this level only because the CPU supports it.
                unsafe { kernel(src, dst, len, key) };
                true
            }
            None => false,
        }
    }

    fn index(self) -> u8 {
        Level::ALL
            .iter()
            .position(|&level| level == self)
            .unwrap_or(0) as u8
    }
}

/// One level's kernel, fixed once made: what the binding hands each Node-API environment, so that a
/// worker asking for another level never changes the level other threads run at (or their `backend`).
///
/// Only [`Kernel::best`] makes one, and only for a level this CPU can run, which is what makes
/// [`Kernel::mask_raw`] sound to call.
#[derive(Debug)]
pub struct Kernel {
    level: Level,
    run: KernelFn,
}

/// One `Kernel` per level, the portable one first; a level foreign to this architecture holds the
/// portable kernel, and `Kernel::best` never hands it out.
static KERNELS: [Kernel; Level::ALL.len()] = [
    Kernel::of(Level::Scalar),
    Kernel::of(Level::Sse2),
    Kernel::of(Level::Neon),
    Kernel::of(Level::Simd128),
    Kernel::of(Level::Avx2),
    Kernel::of(Level::Avx512),
];

impl Kernel {
    const fn of(level: Level) -> Kernel {
        let run: KernelFn = match level {
            #[cfg(target_arch = "x86_64")]
            Level::Sse2 => x86_64::xor_key_sse2,
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => x86_64::xor_key_avx2,
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => x86_64::xor_key_avx512,
            #[cfg(target_arch = "aarch64")]
            Level::Neon => aarch64::xor_key_neon,
            #[cfg(target_arch = "wasm32")]
            Level::Simd128 => wasm32::xor_key_simd128,
            _ => generic::xor_key_scalar,
        };
        Kernel { level, run }
    }

    /// The kernel of the widest level this CPU can run whose rank is at most `cap`'s (see [`Level::best`]).
    pub fn best(cap: Option<Level>) -> &'static Kernel {
        let level = Level::best(cap);
        let kernel = KERNELS
            .iter()
            .find(|kernel| kernel.level == level)
            .unwrap_or(&KERNELS[0]);
        debug_assert!(kernel.level == level && level.is_available());
        kernel
    }

    /// The level this kernel runs at.
    pub fn level(&self) -> Level {
        self.level
    }

    /// [`mask_raw`] at this kernel's level: short inputs take the portable word loop, as there.
    ///
    /// # Safety
    /// As for [`mask_raw`].
    #[inline(always)]
    pub unsafe fn mask_raw(&self, src: *const u8, dst: *mut u8, len: usize, key: [u8; 4]) {
        if len < SHORT {
            // SAFETY: the caller upholds the contract, which `xor_key_scalar` shares.
            unsafe { generic::xor_key_scalar(src, dst, len, key) }
        } else {
            // SAFETY: the caller upholds the contract every `KernelFn` shares; `best` made this kernel
            // only for a level the CPU can run.
            unsafe { (self.run)(src, dst, len, key) }
        }
    }
}

/// Not yet chosen: the first call detects the CPU.
const UNSELECTED: u8 = u8::MAX;

/// The chosen kernel, or `detect_and_run` until the first call (or [`select`]) replaces it.
static KERNEL: AtomicPtr<()> = AtomicPtr::new(detect_and_run as KernelFn as *mut ());
/// `Level::index` of the chosen kernel, or `UNSELECTED`.
static SELECTED: AtomicU8 = AtomicU8::new(UNSELECTED);

/// Chooses the widest level this CPU can run, at most `cap`, for every later call; returns it.
///
/// Calling it again replaces the choice (tests and benchmarks cap the level this way).
pub fn select(cap: Option<Level>) -> Level {
    let level = Level::best(cap);
    let kernel = level
        .kernel()
        .unwrap_or(generic::xor_key_scalar as KernelFn);
    KERNEL.store(kernel as *mut (), Ordering::Relaxed);
    SELECTED.store(level.index(), Ordering::Relaxed);
    level
}

/// The level calls run at: the one [`select`] chose, else the widest this CPU can run.
pub fn selected() -> Level {
    match SELECTED.load(Ordering::Relaxed) {
        UNSELECTED => select(None),
        index => Level::ALL[usize::from(index) % Level::ALL.len()],
    }
}

/// # Safety
/// As for [`mask_raw`].
unsafe fn detect_and_run(src: *const u8, dst: *mut u8, len: usize, key: [u8; 4]) {
    selected();
    // SAFETY: the caller upholds `mask_raw`'s contract; `selected` stored a kernel this CPU can run.
    unsafe { run_selected(src, dst, len, key) }
}

/// # Safety
/// As for [`mask_raw`].
#[inline(always)]
unsafe fn run_selected(src: *const u8, dst: *mut u8, len: usize, key: [u8; 4]) {
    let kernel = KERNEL.load(Ordering::Relaxed);
    // SAFETY: KERNEL only ever holds a `KernelFn` cast to a pointer (its initial value or `select`'s).
    let kernel = unsafe { core::mem::transmute::<*mut (), KernelFn>(kernel) };
    // SAFETY: the caller upholds the contract every `KernelFn` shares.
    unsafe { kernel(src, dst, len, key) }
}

/// `dst[i] = src[i] ^ key[i & 3]` for `i < len`, as the forward byte loop computes it.
///
/// # Safety
/// `src` must be valid for reads of `len` bytes and `dst` valid for writes of `len` bytes (any pointer
/// will do when `len` is 0). The two ranges may overlap in any way, including exactly (in place). No
/// reference to either range may be live during the call.
#[inline]
pub unsafe fn mask_raw(src: *const u8, dst: *mut u8, len: usize, key: [u8; 4]) {
    if len < SHORT {
        // SAFETY: the caller upholds the contract, which `xor_key_scalar` shares.
        unsafe { generic::xor_key_scalar(src, dst, len, key) }
    } else {
        // SAFETY: the caller upholds the contract.
        unsafe { run_selected(src, dst, len, key) }
    }
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
