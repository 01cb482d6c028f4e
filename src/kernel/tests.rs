//! Every level against the oracle, and the dispatch: which level and streaming size it picks.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::oracle::oracle;
use super::{stream_from, Caches, Kernel, Level, MIB};

type Key = [u8; 4];
const KEY: Key = [0x48, 0x2a, 0xce, 0x24];
/// Untouched bytes kept on both sides of every destination, checked after each call.
const GUARD: usize = 64;

/// How a test calls a kernel: [`Kernel::mask_raw_unshortened`] (the level's own code at every length),
/// or [`Kernel::mask_raw`] (short lengths on the word loop).
type Entry = unsafe fn(Kernel, *const u8, *mut u8, usize, Key);
const UNSHORTENED: Entry = Kernel::mask_raw_unshortened;

/// Lengths 0..=300, or under Miri (`cargo miri test`, the portable and SSE2 levels, every instruction
/// interpreted) each side of the vector, unrolled-loop and in-place-piece widths.
fn sweep_lengths() -> Vec<usize> {
    let miri = [0, 1, 3, 7, 15, 16, 17, 31, 33, 63, 64, 65, 100, 255, 256, 300];
    (0..=300).filter(|len| !cfg!(miri) || miri.contains(len)).collect()
}

/// Misalignments within 64 bytes: every one, or under Miri an aligned and a misaligned one.
fn offsets() -> Vec<usize> {
    (0..64).filter(|offset| !cfg!(miri) || [0, 5].contains(offset)).collect()
}

/// A million random calls per level, times `DIFFERENTIAL_SCALE` as for `__test__/differential.test.js`
/// (the platform rig sets 0.1 under qemu).
fn random_cases() -> usize {
    let scale =
        std::env::var("DIFFERENTIAL_SCALE").ok().and_then(|value| value.trim().parse::<f64>().ok());
    (1_000_000.0 * scale.filter(|scale| *scale > 0.0).unwrap_or(1.0)) as usize
}

/// A kernel of every level this CPU runs, lowest first, streaming from the dispatch's size.
fn kernels() -> Vec<Kernel> {
    Level::ALL.into_iter().filter_map(Kernel::of).collect()
}

/// `kernel` through `via` on `buf[src..src + len]` into `buf[dst..dst + len]` (any overlap), the whole
/// buffer then held against the oracle's.
fn run(via: Entry, kernel: Kernel, buf: &mut [u8], src: usize, dst: usize, len: usize, key: Key) {
    assert!(src + len <= buf.len() && dst + len <= buf.len());
    let mut expected = buf.to_vec();
    oracle(&mut expected, src, dst, len, key);
    let base = buf.as_mut_ptr();
    // SAFETY: both ranges lie inside `buf`, which no reference is held to during the call.
    unsafe { via(kernel, base.add(src), base.add(dst), len, key) };
    let (level, streams) = (kernel.level(), kernel.stream_from());
    assert!(buf == expected, "{level:?} from {streams}: {len} B at {src} into {dst}, key {key:?}");
}

/// `len` random bytes by xorshift from one draw: Miri runs `fill`'s ChaCha a thousand times slower.
fn random_bytes(rng: &mut StdRng, len: usize) -> Vec<u8> {
    let mut x = rng.random::<u64>() | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u8
    };
    (0..len).map(|_| next()).collect()
}

/// `kernel` through `via` on `len` bytes at `src` into another buffer at `dst_off`, then in place at
/// `src`, the whole buffer checked; the key rotated by `dst_off`, so a sweep of offsets takes every rotation.
fn check(via: Entry, kernel: Kernel, rng: &mut StdRng, len: usize, src: usize, dst_off: usize) {
    let dst = src + len + GUARD + dst_off;
    let mut buf = random_bytes(rng, dst + len + GUARD);
    let mut key = KEY;
    key.rotate_left(dst_off & 3);
    run(via, kernel, &mut buf, src, dst, len, key);
    run(via, kernel, &mut buf, src, src, len, key);
}

/// Every length 0..=300 × every source and destination misalignment within 64 bytes, into another buffer
/// and in place (ws's `mask(data, key, data, 0, n)` and every `unmask`), under every key rotation.
#[test]
fn every_level_sweep() {
    let mut rng = StdRng::seed_from_u64(1);
    for kernel in kernels() {
        for len in sweep_lengths() {
            for src_off in offsets() {
                for dst_off in offsets() {
                    check(UNSHORTENED, kernel, &mut rng, len, src_off, dst_off);
                }
            }
        }
    }
}

/// Partly overlapping ranges, in both directions, must equal the forward loop (which, when the output
/// starts inside the source, reads bytes it has just written).
#[test]
fn every_level_overlapping() {
    let mut rng = StdRng::seed_from_u64(3);
    for kernel in kernels() {
        for len in sweep_lengths().into_iter().filter(|len| *len <= 200) {
            for gap in
                (-140isize..=140).filter(|gap| !cfg!(miri) || [-17, -1, 1, 17, 65].contains(gap))
            {
                let src = 160 + (len % 7);
                let mut buf = random_bytes(&mut rng, src + 140 + len + GUARD);
                run(UNSHORTENED, kernel, &mut buf, src, src.wrapping_add_signed(gap), len, KEY);
            }
        }
    }
}

/// A million random calls per level: lengths up to 8 KiB (most of them short), random offsets, keys and
/// layouts (apart, in place, overlapping either way), half of them streaming from the smallest size. Under
/// Miri the sweeps alone, which cover those layouts.
#[test]
#[cfg_attr(miri, ignore)]
fn every_level_randomized() {
    let mut rng = StdRng::seed_from_u64(4);
    let mut buf = vec![0u8; 3 * 8192 + 4 * GUARD];
    for kernel in kernels() {
        let kernels = [kernel, kernel.with_streaming(0)];
        for _ in 0..random_cases() {
            let limit = [64, 512, 2048, 8192][rng.random_range(0..4)];
            let len = rng.random_range(0..limit);
            let key: Key = rng.random();
            let src = GUARD + rng.random_range(0..8192);
            let dst = match rng.random_range(0..3) {
                0 => src,
                1 => (src + rng.random_range(0..=len.min(8192))).min(buf.len() - GUARD - len),
                _ => GUARD + rng.random_range(0..2 * 8192),
            };
            // Touch only the bytes around this call, to keep a million calls quick.
            let lo = src.min(dst) - GUARD;
            let hi = (src.max(dst) + len + GUARD).min(buf.len());
            rng.fill(&mut buf[lo..hi]);
            let kernel = kernels[rng.random_range(0..2)];
            run(UNSHORTENED, kernel, &mut buf[lo..hi], src - lo, dst - lo, len, key);
        }
    }
}

/// Past the sweeps: sizes through the caches and beyond, at odd lengths and offsets; on x86-64 (the only
/// architecture that streams), the dispatch's streaming size and one byte either side, and outputs streamed
/// from 8 MiB (over 256-bit vectors at the avx512 level) at alignments within a vector. Too large for Miri.
#[test]
#[cfg_attr(miri, ignore)]
fn every_level_large() {
    let mut rng = StdRng::seed_from_u64(5);
    for kernel in kernels() {
        for len in [4093, 65_537, (1 << 20) + 3, (4 << 20) + 61] {
            check(UNSHORTENED, kernel, &mut rng, len, 3, 5);
        }
        if cfg!(target_arch = "x86_64") {
            let size = kernel.stream_from();
            for len in [size - 1, size, size + 1] {
                check(UNSHORTENED, kernel, &mut rng, len, 3, 6);
            }
            let kernel = kernel.with_streaming(8 << 20);
            for (src, dst_off) in [(0, 0), (1, 0), (0, 1), (3, 17), (5, 31), (63, 33), (2, 63)] {
                check(UNSHORTENED, kernel, &mut rng, (8 << 20) + 13, src, dst_off);
            }
        }
    }
}

#[test]
fn levels_and_caps() {
    for level in Level::ALL {
        assert_eq!(Level::from_name(level.name()), Some(level));
    }
    assert_eq!(Level::from_name("AVX2"), Some(Level::Avx2));
    assert_eq!(Level::from_name("avx"), None);
    // The levels this CPU runs by the architecture's own detection, lowest first; a level of another
    // architecture as a cap, and the level it admits here by rank.
    #[cfg(target_arch = "x86_64")]
    let (runs, cap, admits) = {
        use std::arch::is_x86_feature_detected as has;
        let mut runs = vec![Level::Scalar, Level::Sse2];
        runs.extend(has!("avx2").then_some(Level::Avx2));
        runs.extend((has!("avx512f") && has!("avx512bw") && has!("avx2")).then_some(Level::Avx512));
        (runs, Level::Neon, Level::Sse2)
    };
    #[cfg(target_arch = "aarch64")]
    let (runs, cap, admits) = (vec![Level::Scalar, Level::Neon], Level::Avx512, Level::Neon);
    #[cfg(target_arch = "wasm32")]
    let (runs, cap, admits) = (vec![Level::Scalar, Level::Simd128], Level::Sse2, Level::Simd128);
    let available = Level::ALL.into_iter().filter(|level| level.is_available()).collect::<Vec<_>>();
    assert_eq!(available, runs, "the levels this CPU runs");
    let best = Kernel::best(None).level();
    assert_eq!(Some(&best), runs.last(), "the dispatch takes the widest level this CPU runs");
    assert_eq!(Kernel::best(Some(cap)).level(), admits, "a cap works by rank");
    assert_eq!(Kernel::best(Some(Level::Avx512)).level(), best);
}

/// Each cap's `Kernel` (without one, the dispatch's, as the addon and the WebAssembly module take it) is
/// that level's, and masks as the oracle does on both sides of `SHORT`, bufferutil's own test vector too.
#[test]
fn kernels_per_cap() {
    let mut rng = StdRng::seed_from_u64(7);
    for cap in Level::ALL.map(Some).into_iter().chain([None]) {
        let kernel = Kernel::best(cap);
        assert!(kernel.level().is_available(), "cap {cap:?}");
        if let Some(cap) = cap.filter(|cap| cap.is_available()) {
            assert_eq!(kernel.level(), cap, "an available cap is the level itself");
        }
        let mut vector = [0x6c, 0x3c, 0x58, 0xd9, 0x3e, 0x21, 0x09, 0x9f, 0, 0, 0, 0, 0, 0, 0, 0];
        run(Kernel::mask_raw, kernel, &mut vector, 0, 8, 8, KEY);
        assert_eq!(vector[8..], [0x24, 0x16, 0x96, 0xfd, 0x76, 0x0b, 0xc7, 0xbb]);
        // SAFETY: a zero length touches nothing, so even dangling pointers are allowed.
        unsafe { kernel.mask_raw(core::ptr::null(), core::ptr::null_mut(), 0, KEY) };
        for len in [0, 1, 15, 16, 17, 63, 64, 65, 200, 4099]
            .into_iter()
            .filter(|len| !cfg!(miri) || *len < 4096)
        {
            // The output at `len + 5` modulo 64 from the allocation, the in-place call at 3.
            check(Kernel::mask_raw, kernel, &mut rng, len, 3, 2);
        }
    }
}

/// The streaming size: a quarter of the last-level cache, 32 MiB assumed where the CPU reports none, at
/// most 40 MiB; the dispatch and every level take it from this CPU's cache.
#[test]
fn streaming_size() {
    assert_eq!(stream_from(Some(8 * MIB)), 2 * MIB);
    assert_eq!(stream_from(Some(32 * MIB)), 8 * MIB);
    assert_eq!(stream_from(None), 8 * MIB);
    assert_eq!(stream_from(Some(160 * MIB - 4)), 40 * MIB - 1);
    assert_eq!(stream_from(Some(480 * MIB)), 40 * MIB);
    let caches = Caches::this();
    if cfg!(all(target_arch = "x86_64", not(miri))) {
        assert!(caches.llc.is_some(), "CPUID describes no cache: {caches:?}");
    }
    for kernel in kernels().into_iter().chain([Kernel::best(None)]) {
        assert_eq!(kernel.stream_from(), stream_from(caches.llc), "{:?}", kernel.level());
    }
}

/// Every level streaming from the smallest size (every length to 300 and a few past, at every output
/// alignment within a vector) and from 4099 bytes (under Miri 99), one byte either side.
#[test]
fn every_level_streaming_from_any_size() {
    let mut rng = StdRng::seed_from_u64(13);
    for kernel in kernels() {
        let streaming = kernel.with_streaming(0);
        let past: &[usize] = if cfg!(miri) { &[] } else { &[1000, 4097] };
        for len in sweep_lengths().into_iter().chain(past.iter().copied()) {
            for dst_off in offsets() {
                check(UNSHORTENED, streaming, &mut rng, len, (len + dst_off) % 7, dst_off);
            }
        }
        let edge = if cfg!(miri) { 99 } else { 4099 };
        for len in [edge - 1, edge, edge + 1] {
            check(UNSHORTENED, kernel.with_streaming(edge), &mut rng, len, 5, 19);
        }
    }
}
