//! The dispatch: the rules for the CPUs the measurements came from, each route and streaming edge of
//! the plans those rules make (run here wherever this CPU has their levels), and the in-place pieces.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{Cpu, Kernel, Level, Plan, Route, Vendor};

const KEY: [u8; 4] = [0x91, 0x07, 0x3c, 0xe5];
const KIB: usize = 1 << 10;
const MIB: usize = 1 << 20;

const ZEN4: Cpu = Cpu {
    vendor: Vendor::Amd,
    family: 25,
    model: 17,
    l1d: Some(32 * KIB),
    l2: Some(MIB),
    llc: Some(32 * MIB),
};
const ZEN3: Cpu = Cpu { model: 1, l2: Some(512 * KIB), ..ZEN4 };
const ZEN5: Cpu = Cpu { family: 26, model: 2, l1d: Some(48 * KIB), ..ZEN4 };
/// As CPUID reports it on bare metal; this project's VM of it reports model 167, which no rule reads.
const SAPPHIRE_RAPIDS: Cpu = Cpu {
    vendor: Vendor::Intel,
    family: 6,
    model: 143,
    l1d: Some(48 * KIB),
    l2: Some(2 * MIB),
    llc: Some(480 * MIB),
};

/// The CPUs the rules were measured on, by name.
const MEASURED: [(&str, Cpu); 4] =
    [("zen4", ZEN4), ("zen3", ZEN3), ("zen5", ZEN5), ("spr", SAPPHIRE_RAPIDS)];

/// Route splits below this are swept at every offset and streaming setting; larger ones once.
const SWEPT_BELOW: usize = MIB;

#[test]
fn rules_for_the_measured_cpus() {
    let zen4 = super::cpu::plan(&ZEN4, Level::Avx512, true);
    let split = |from| Route::split(Level::Avx512, from, Level::Avx2);
    assert_eq!((zen4.distinct, zen4.in_place), (split(256), split(256)));
    assert_eq!(zen4.stream_from, 8 * MIB);

    let zen5 = super::cpu::plan(&ZEN5, Level::Avx512, true);
    assert_eq!((zen5.distinct, zen5.in_place), (split(512 * KIB), split(16 * MIB)));
    assert_eq!(zen5.stream_from, 8 * MIB);
    let silent = Cpu { l2: None, llc: None, ..ZEN5 };
    assert_eq!(
        super::cpu::plan(&silent, Level::Avx512, true),
        zen5,
        "the default caches are Zen 5's"
    );

    let zen3 = super::cpu::plan(&ZEN3, Level::Avx2, true);
    assert_eq!(
        zen3.distinct,
        Route::split(Level::Avx2, 512 * KIB, Level::Sse2).then(8 * MIB, Level::Avx2)
    );
    assert_eq!(zen3.in_place, Route::one(Level::Avx2));
    assert_eq!(zen3.stream_from, 8 * MIB);
    // Zen 4 capped at AVX2 is not Zen 3, nor is Zen 3 capped at SSE2 given Zen 3's routes.
    let zen4_capped = super::cpu::plan(&ZEN4, Level::Avx2, true);
    assert_eq!(zen4_capped.distinct, Route::one(Level::Avx2));
    let zen3_capped = super::cpu::plan(&ZEN3, Level::Sse2, true);
    assert_eq!(zen3_capped.distinct, Route::one(Level::Sse2));

    let spr = super::cpu::plan(&SAPPHIRE_RAPIDS, Level::Avx512, true);
    assert_eq!(spr.stream_from, 40 * MIB, "480 MiB reported: at most 40 MiB");
    assert_eq!(spr.distinct, split(40 * MIB));
    assert_eq!(spr.in_place, Route::one(Level::Avx512));

    // A cap, no AVX2 beside AVX-512, and a CPU that says nothing.
    let capped = super::cpu::plan(&SAPPHIRE_RAPIDS, Level::Avx2, true);
    assert_eq!(capped.distinct, Route::one(Level::Avx2));
    let alone = super::cpu::plan(&ZEN4, Level::Avx512, false);
    assert_eq!(alone.in_place, Route::one(Level::Avx512));
    let unknown = super::cpu::plan(&Cpu::UNKNOWN, Level::Sse2, true);
    assert_eq!(unknown.distinct, Route::one(Level::Sse2));
    assert_eq!(unknown.stream_from, 8 * MIB);
}

/// Where each rule stops: Zen 3's model ranges and assumed L2, Intel's streaming size below the cap,
/// and AVX-512 without AVX2 or capped below it.
#[test]
fn rules_at_their_bounds() {
    let plan = |cpu: Cpu, widest| super::cpu::plan(&cpu, widest, true);
    let zen3_split = |from| Route::split(Level::Avx2, from, Level::Sse2).then(8 * MIB, Level::Avx2);
    // Zen 3's client models (0x21, 0x50) and the last before Zen 4's range run its rule; Zen 4's models
    // capped at AVX2 do not.
    for model in [0x00, 0x0f, 0x21, 0x50, 0x5f] {
        assert_eq!(
            plan(Cpu { model, ..ZEN3 }, Level::Avx2).distinct,
            zen3_split(512 * KIB),
            "{model:#x}"
        );
    }
    for model in [0x10, 0x1f, 0x60, 0x7f, 0xa0, 0xaf] {
        assert_eq!(
            plan(Cpu { model, ..ZEN3 }, Level::Avx2).distinct,
            Route::one(Level::Avx2),
            "{model:#x}"
        );
    }
    assert_eq!(plan(Cpu { l2: None, ..ZEN3 }, Level::Avx2).distinct, zen3_split(512 * KIB));
    assert_eq!(plan(Cpu { l2: Some(MIB), ..ZEN3 }, Level::Avx2).distinct, zen3_split(MIB));

    // A last-level cache under 160 MiB streams from a quarter of it.
    let intel = plan(Cpu { llc: Some(105 * MIB), ..SAPPHIRE_RAPIDS }, Level::Avx512);
    assert_eq!(intel.stream_from, 105 * MIB / 4);
    assert_eq!(intel.distinct, Route::split(Level::Avx512, 105 * MIB / 4, Level::Avx2));
    for cpu in [SAPPHIRE_RAPIDS, ZEN5] {
        let alone = super::cpu::plan(&cpu, Level::Avx512, false);
        assert_eq!(
            (alone.distinct, alone.in_place),
            (Route::one(Level::Avx512), Route::one(Level::Avx512))
        );
        let capped = plan(cpu, Level::Avx2);
        assert_eq!(
            (capped.distinct, capped.in_place),
            (Route::one(Level::Avx2), Route::one(Level::Avx2))
        );
    }
}

/// The functions a kernel calls are those of the levels its routes name, at every edge of every plan
/// this CPU can run: the bytes alone would not tell one level from another.
#[test]
fn kernels_call_the_levels_their_routes_name() {
    let address = |function: Option<usize>| function.expect("an available level");
    for (name, cpu) in MEASURED.into_iter().chain([("this", Cpu::this())]) {
        for widest in Level::ALL.into_iter().filter(|level| level.is_available()) {
            let plan = super::cpu::plan(&cpu, widest, Level::Avx2.is_available());
            let Some(kernel) = Kernel::planned(plan) else {
                continue;
            };
            let edges = [plan.distinct, plan.in_place].into_iter().flat_map(|route| {
                [route.from, route.until]
                    .into_iter()
                    .filter(|&split| split < usize::MAX)
                    .flat_map(|split| [split - 1, split])
            });
            for len in edges.chain([0, 16, usize::MAX / 2]) {
                let (distinct, in_place) = (plan.distinct.at(len), plan.in_place.at(len));
                assert_eq!(
                    kernel.distinct.at(len) as usize,
                    address(super::run_of(distinct).map(|f| f as usize)),
                    "{name} {len} B into another buffer: {distinct:?}"
                );
                assert_eq!(
                    kernel.in_place.at(len) as usize,
                    address(super::in_place_of(in_place).map(|f| f as usize)),
                    "{name} {len} B in place: {in_place:?}"
                );
            }
        }
    }
}

/// The dispatch of this CPU, and under each cap, names only levels the CPU runs, and reports its widest.
#[test]
fn this_cpu() {
    let cpu = Cpu::this();
    let best = Kernel::best(None);
    for len in [0, 16, 255, 256, 4096, 1 << 30] {
        for in_place in [false, true] {
            assert!(best.choice(len, in_place).level.is_available());
            assert!(best.choice(len, in_place).level.rank() <= best.level().rank());
        }
    }
    if cfg!(target_arch = "x86_64") {
        assert_ne!(cpu.vendor, Vendor::Other, "{cpu:?}");
        let plan = super::cpu::plan(&cpu, best.level(), Level::Avx2.is_available());
        assert_eq!(best.stream_from(), plan.stream_from);
        assert_eq!(
            Kernel::planned(plan).map(|kernel| kernel.choice(4096, false)),
            Some(best.choice(4096, false))
        );
    }
    // Below SHORT bytes `mask_raw` runs the word loop whatever the route.
    assert_eq!(best.choice(15, false).level, Level::Scalar);
    assert_eq!(Kernel::best(Some(Level::Scalar)).choice(1000, false).level, Level::Scalar);
}

fn oracle(src: &[u8], key: [u8; 4]) -> Vec<u8> {
    src.iter().zip(0..).map(|(b, i)| b ^ key[i & 3]).collect()
}

/// `kernel` on `len` bytes at `src_off` into another buffer at `dst_off`, and in place at `src_off`.
fn check(kernel: Kernel, rng: &mut StdRng, len: usize, src_off: usize, dst_off: usize, what: &str) {
    let mut src = vec![0u8; len + src_off + 64];
    rng.fill(&mut src[..]);
    let expected = oracle(&src[src_off..src_off + len], KEY);
    let mut dst = vec![0xa5u8; len + dst_off + 64];
    // SAFETY: both ranges lie inside their own buffers, which no reference is held to during the call.
    unsafe {
        let (s, d) = (src.as_ptr().add(src_off), dst.as_mut_ptr().add(dst_off));
        kernel.mask_raw(s, d, len, KEY);
    }
    assert!(
        dst[dst_off..dst_off + len] == expected[..],
        "{what} distinct {len} +{src_off} +{dst_off}"
    );
    assert!(dst[..dst_off].iter().chain(&dst[dst_off + len..]).all(|&b| b == 0xa5), "{what} {len}");
    let before = src.clone();
    let at = src.as_mut_ptr();
    // SAFETY: in place inside `src`, which no reference is held to during the call.
    unsafe { kernel.mask_raw(at.add(src_off), at.add(src_off), len, KEY) };
    assert!(src[src_off..src_off + len] == expected[..], "{what} in place {len} +{src_off}");
    assert!(src[..src_off] == before[..src_off] && src[src_off + len..] == before[src_off + len..]);
}

/// Every plan the rules make, run here where this CPU has its levels: each route on both sides of its
/// split, and the streaming threshold (lowered to a few KiB, as `with_streaming` allows) on both sides.
#[test]
fn every_plan_at_its_edges() {
    let mut rng = StdRng::seed_from_u64(11);
    for (name, cpu) in MEASURED.into_iter().chain([("this", Cpu::this())]) {
        for widest in Level::ALL.into_iter().filter(|level| level.is_available()) {
            let plan = super::cpu::plan(&cpu, widest, Level::Avx2.is_available());
            let Some(kernel) = Kernel::planned(plan) else {
                continue;
            };
            let mut edges = vec![15, 16, 17, 255, 256, 257, 300];
            for route in [plan.distinct, plan.in_place] {
                for split in [route.from, route.until] {
                    if split < SWEPT_BELOW {
                        edges.extend([split - 1, split, split + 1]);
                    }
                }
            }
            for stream_from in [usize::MAX, 0, 4099] {
                let kernel = kernel.with_streaming(stream_from);
                for &len in &edges {
                    for (src_off, dst_off) in [(0, 0), (1, 6), (3, 61), (7, 32)] {
                        check(kernel, &mut rng, len, src_off, dst_off, name);
                    }
                }
                for len in [4098, 4099, 4100] {
                    check(kernel, &mut rng, len, 5, 19, name);
                }
            }
        }
    }
}

/// The dispatch's own streaming threshold, exactly at it and one byte either side (x86-64 only streams).
#[cfg(target_arch = "x86_64")]
#[test]
fn dispatch_streaming_threshold() {
    let mut rng = StdRng::seed_from_u64(12);
    let kernel = Kernel::best(None);
    let from = kernel.stream_from().min(64 * MIB);
    for len in [from - 1, from, from + 1] {
        check(kernel, &mut rng, len, 3, 6, "dispatch");
    }
}

/// The route splits `every_plan_at_its_edges` leaves out as too large to sweep (Zen 5's in place, at
/// half the last-level cache; Zen 3's and Sapphire Rapids' AVX2 where streaming starts), one byte
/// either side, in every plan this CPU can run.
#[test]
fn large_route_splits() {
    let mut rng = StdRng::seed_from_u64(14);
    for (name, cpu) in MEASURED.into_iter().chain([("this", Cpu::this())]) {
        for widest in [Level::Avx512, Level::Avx2] {
            let plan = super::cpu::plan(&cpu, widest, Level::Avx2.is_available());
            let Some(kernel) = Kernel::planned(plan) else {
                continue;
            };
            let splits = [plan.distinct, plan.in_place]
                .into_iter()
                .flat_map(|route| [route.from, route.until]);
            for split in splits.filter(|split| (SWEPT_BELOW..=64 * MIB).contains(split)) {
                for len in [split - 1, split, split + 1] {
                    check(kernel, &mut rng, len, 5, 6, name);
                }
            }
        }
    }
}

/// Every level streaming from the smallest size: every length to 300 and a few past, at every output
/// alignment within a vector, guard bytes checked.
#[test]
fn every_level_streaming_from_zero() {
    let mut rng = StdRng::seed_from_u64(13);
    for level in Level::ALL.into_iter().filter(|level| level.is_available()) {
        let kernel = Kernel::of(level).expect("available").with_streaming(0);
        for len in (0..=300).chain([1000, 4097]) {
            for dst_off in 0..64 {
                check(kernel, &mut rng, len, (len + dst_off) % 7, dst_off, level.name());
            }
        }
    }
}

/// `Kernel::planned` reports the plan's widest level, and refuses levels this CPU lacks.
#[test]
fn planned_kernels() {
    let plan = Plan {
        distinct: Route::one(Level::Scalar),
        in_place: Route::split(Level::Scalar, 100, Level::Sse2).then(200, Level::Scalar),
        stream_from: 0,
    };
    if Level::Sse2.is_available() {
        let kernel = Kernel::planned(plan).expect("scalar and sse2 run");
        assert_eq!(kernel.level(), Level::Sse2);
        assert_eq!(kernel.choice(99, true).level, Level::Scalar);
        assert_eq!(kernel.choice(100, true).level, Level::Sse2);
        assert_eq!(kernel.choice(199, true).level, Level::Sse2);
        assert_eq!(kernel.choice(200, true).level, Level::Scalar);
    }
    let neither = Plan {
        distinct: Route::one(if cfg!(target_arch = "x86_64") { Level::Neon } else { Level::Avx2 }),
        ..plan
    };
    assert!(Kernel::planned(neither).is_none());
}
