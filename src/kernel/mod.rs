//! The masking kernel: `dst[i] = src[i] ^ key[i & 3]` for `i < len` (RFC 6455 §5.3), with SIMD.
//!
//! The binding checks every bound once and hands raw pointers here, not slices: ws masks in place
//! (`mask(data, key, data, 0, n)`), and a `&[u8]` beside a `&mut [u8]` over the same bytes would be
//! undefined behaviour.
//!
//! ```text
//! kernel.mask_raw(src, dst, len, key):          # kernel: Kernel::best(cap), the widest level up to `cap`
//!     if len < SHORT: the u64 word loop         # too short to pay for an indirect call
//!     elif src == dst: in_place(...)            # x86-64 below 256 B: pieces that share no byte, else xor_key
//!     else: distinct(..., stream_from)          # avx512 from stream_from: over 256-bit vectors
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
//!                                               # x86-64, len >= stream_from, ranges apart: streaming
//!                                               #   (non-temporal) stores, then sfence
//!     store(dst, head); store(dst + len - B, tail)
//! ```
//!
//! A key "rotated by n" is the key word for byte `n`: `key[n & 3], key[(n + 1) & 3], …`.

#[cfg(target_arch = "aarch64")]
mod aarch64;
mod cache;
mod generic;
#[cfg(target_arch = "wasm32")]
mod wasm32;
#[cfg(target_arch = "x86_64")]
mod x86_64;

pub use cache::Caches;

/// Below this many bytes the portable word loop runs directly, without the indirect call.
const SHORT: usize = 16;

const MIB: usize = 1 << 20;

/// One implementation of the kernel, with the contract of [`Kernel::mask_raw`], streaming as
/// `generic::xor_key` does.
type KernelFn =
    unsafe fn(src: *const u8, dst: *mut u8, len: usize, key: [u8; 4], stream_from: usize);

/// One implementation in place: [`Kernel::mask_raw`]'s contract with `src == dst == buf`.
type InPlaceFn = unsafe fn(buf: *mut u8, len: usize, key: [u8; 4]);

/// An instruction-set level the kernel can run at, from the portable word loop up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// Portable 8-byte word loop; runs everywhere.
    Scalar,
    /// 16-byte SSE2 vectors (the x86-64 baseline).
    Sse2,
    /// 32-byte AVX2 vectors.
    Avx2,
    /// 64-byte AVX-512 vectors (AVX-512F and AVX-512BW, with AVX2); streamed outputs over AVX2's.
    Avx512,
    /// 16-byte NEON vectors (the aarch64 baseline).
    Neon,
    /// WebAssembly SIMD (wasm32 with simd128): pairs of 16-byte vectors.
    Simd128,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 6] =
        [Level::Scalar, Level::Sse2, Level::Neon, Level::Simd128, Level::Avx2, Level::Avx512];

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
        Level::ALL.into_iter().find(|level| level.name().eq_ignore_ascii_case(name))
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
        functions(self).is_some()
    }
}

/// The functions of `level` (into another buffer, and in place), if this CPU can run it. Detection is
/// std's, cached by std after the first question.
fn functions(level: Level) -> Option<(KernelFn, InPlaceFn)> {
    Some(match level {
        Level::Scalar => (generic::xor_key_scalar, generic::xor_in_place_scalar),
        #[cfg(target_arch = "x86_64")]
        Level::Sse2 => (x86_64::xor_key_sse2, x86_64::xor_in_place_sse2),
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 if std::is_x86_feature_detected!("avx2") => {
            (x86_64::xor_key_avx2, x86_64::xor_in_place_avx2)
        }
        #[cfg(target_arch = "x86_64")]
        Level::Avx512
            if std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512bw")
                && std::is_x86_feature_detected!("avx2") =>
        {
            (x86_64::xor_key_avx512, x86_64::xor_in_place_avx512)
        }
        #[cfg(target_arch = "aarch64")]
        Level::Neon => (aarch64::xor_key_neon, aarch64::xor_in_place_neon),
        // No runtime detection exists in WebAssembly; see `wasm32`.
        #[cfg(target_arch = "wasm32")]
        Level::Simd128 => (wasm32::xor_key_simd128, wasm32::xor_in_place_simd128),
        _ => return None,
    })
}

/// From how many bytes a distinct output that shares no byte with its source is streamed, for a last-level
/// cache of `llc` bytes (32 MiB where the CPU reports none): once the output cannot stay in cache anyway, as
/// a normal store then only adds a read of each output line, while a streamed output that would have stayed
/// in cache must be read back by whoever reads it next (ws writes the frame to the socket right after). A
/// distinct call's working set is its source and its output, so a quarter of the cache, as glibc's memcpy
/// takes it; 40 MiB at most, as a cache that large is a whole socket's, shared by many cores.
pub fn stream_from(llc: Option<usize>) -> usize {
    (llc.unwrap_or(32 * MIB) / 4).min(40 * MIB)
}

/// A kernel: one level's pair of functions (into another buffer, and in place) and the size from which
/// a distinct output is streamed, fixed once made. [`Kernel::of`] and [`Kernel::best`] make one only of
/// a level this CPU can run, which is what makes [`Kernel::mask_raw`] sound to call.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    level: Level,
    distinct: KernelFn,
    in_place: InPlaceFn,
    stream_from: usize,
}

impl Kernel {
    /// `level`, if this CPU can run it, streaming from the size the dispatch would
    /// ([`Kernel::with_streaming`] changes that): for tests and benchmarks.
    pub fn of(level: Level) -> Option<Kernel> {
        let (distinct, in_place) = functions(level)?;
        Some(Kernel { level, distinct, in_place, stream_from: stream_from(Caches::this().llc) })
    }

    /// The dispatch: the widest level this CPU runs whose rank is at most `cap`'s (any, without a cap).
    pub fn best(cap: Option<Level>) -> Kernel {
        let limit = cap.map_or(u8::MAX, Level::rank);
        Level::ALL
            .into_iter()
            .rev()
            .filter(|level| level.rank() <= limit)
            .find_map(Kernel::of)
            .expect("the scalar level runs everywhere")
    }

    /// The level this kernel runs at: what `backend` reports.
    pub fn level(self) -> Level {
        self.level
    }

    /// This kernel, streaming a distinct output from `from` bytes (`usize::MAX`: never, 0: from the
    /// width of one vector): for benchmarks and tests.
    pub fn with_streaming(self, from: usize) -> Kernel {
        Kernel { stream_from: from, ..self }
    }

    /// From how many bytes a distinct output is streamed.
    pub fn stream_from(self) -> usize {
        self.stream_from
    }

    /// `dst[i] = src[i] ^ key[i & 3]` for `i < len`, exactly as the forward byte loop leaves it, at this
    /// kernel's level; short inputs take the portable word loop, which beats an indirect call there.
    ///
    /// # Safety
    /// `src` must be valid for reads and `dst` for writes of `len` bytes. The two ranges may overlap in
    /// any way (`src == dst` is in place). No Rust reference to either may be live during the call, and
    /// no other thread may write them (which the binding cannot promise for a SharedArrayBuffer:
    /// docs/safety.md, "Not covered").
    #[inline(always)]
    pub unsafe fn mask_raw(self, src: *const u8, dst: *mut u8, len: usize, key: [u8; 4]) {
        if len >= SHORT {
            // SAFETY: as in `mask_raw_unshortened`.
            unsafe { self.mask_raw_unshortened(src, dst, len, key) }
        } else if core::ptr::eq(src, dst) {
            // SAFETY: the caller upholds the contract, which `xor_in_place_scalar` shares in place.
            unsafe { generic::xor_in_place_scalar(dst, len, key) }
        } else {
            // SAFETY: the caller upholds the contract, which `xor_key_scalar` shares.
            unsafe { generic::xor_key_scalar(src, dst, len, key, usize::MAX) }
        }
    }

    /// The level's own code at every length, short ones included: what tests, benchmarks and the
    /// fuzzer hold against the oracle.
    ///
    /// # Safety
    /// As for [`Kernel::mask_raw`].
    #[inline(always)]
    pub unsafe fn mask_raw_unshortened(
        self,
        src: *const u8,
        dst: *mut u8,
        len: usize,
        key: [u8; 4],
    ) {
        if core::ptr::eq(src, dst) {
            // SAFETY: the caller upholds the contract, in place here; `Kernel::of` took the functions
            // of a level the CPU can run.
            unsafe { (self.in_place)(dst, len, key) }
        } else {
            // SAFETY: the caller upholds the contract every `KernelFn` shares; as above for the level.
            unsafe { (self.distinct)(src, dst, len, key, self.stream_from) }
        }
    }
}

#[cfg(test)]
mod oracle;
#[cfg(test)]
mod tests;
