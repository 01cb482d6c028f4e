//! What the dispatch knows of the CPU (vendor, family, model and cache sizes, from CPUID on x86-64), and
//! the rules that turn it into a [`Plan`]: which level runs which operation at which sizes, and from what
//! size a distinct output is streamed past the caches. The rules are plain functions of a [`Cpu`], so the
//! tests hold them against the CPUs the measurements came from (benchmark/results/kernel/); nothing is
//! timed at load.

use super::Level;

/// Who made the CPU, as CPUID's vendor string says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vendor {
    /// `GenuineIntel`.
    Intel,
    /// `AuthenticAMD`.
    Amd,
    /// Any other vendor, or an architecture without CPUID.
    Other,
}

impl Vendor {
    /// The name the addon exports it by (`vendor`), which keys lib/thresholds.js.
    pub fn name(self) -> &'static str {
        match self {
            Vendor::Intel => "intel",
            Vendor::Amd => "amd",
            Vendor::Other => "other",
        }
    }
}

/// The facts the rules read. Sizes are in bytes; `None` where the CPU does not say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cpu {
    /// The vendor.
    pub vendor: Vendor,
    /// The family as CPUID leaf 1 gives it, extended family added (25 is AMD Zen 3 and Zen 4, 26 Zen 5).
    pub family: u32,
    /// The model, extended model included.
    pub model: u32,
    /// The first-level data cache of one core.
    pub l1d: Option<usize>,
    /// The second-level cache of one core.
    pub l2: Option<usize>,
    /// The last-level cache this core shares (on AMD, its core complex's L3), whole, not divided among
    /// the threads that share it.
    pub llc: Option<usize>,
}

impl Cpu {
    /// Nothing known: what an architecture without CPUID gets.
    pub const UNKNOWN: Cpu =
        Cpu { vendor: Vendor::Other, family: 0, model: 0, l1d: None, l2: None, llc: None };

    /// The CPU this process runs on, read once and kept (on x86-64; elsewhere [`Cpu::UNKNOWN`]).
    pub fn this() -> Cpu {
        #[cfg(target_arch = "x86_64")]
        {
            static THIS: std::sync::OnceLock<Cpu> = std::sync::OnceLock::new();
            *THIS.get_or_init(read)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Cpu::UNKNOWN
        }
    }
}

/// Which level runs at which length, for one kind of call: `below` up to `from`, `above` from there,
/// and `beyond` from `until` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    /// The level for lengths below `from`.
    pub below: Level,
    /// The length from which `above` runs.
    pub from: usize,
    /// The level for lengths of `from` or more and below `until`.
    pub above: Level,
    /// The length from which `beyond` runs (`usize::MAX`: never).
    pub until: usize,
    /// The level for lengths of `until` or more.
    pub beyond: Level,
}

impl Route {
    /// One level at every length.
    pub const fn one(level: Level) -> Route {
        Route::split(level, usize::MAX, level)
    }

    /// `below` for lengths below `from`, `above` from there on.
    pub const fn split(below: Level, from: usize, above: Level) -> Route {
        Route { below, from, above, until: usize::MAX, beyond: above }
    }

    /// This route with `beyond` from `until` bytes on.
    pub const fn then(self, until: usize, beyond: Level) -> Route {
        Route { until, beyond, ..self }
    }

    /// Which of its ranges `len` bytes fall in: the one comparison both the plan's levels and the
    /// kernel's functions for them are routed by.
    #[inline(always)]
    pub(super) fn range(self, len: usize) -> Range {
        if len < self.from {
            Range::Below
        } else if len < self.until {
            Range::Above
        } else {
            Range::Beyond
        }
    }

    /// The level this route runs at `len` bytes.
    pub fn at(self, len: usize) -> Level {
        match self.range(len) {
            Range::Below => self.below,
            Range::Above => self.above,
            Range::Beyond => self.beyond,
        }
    }

    /// The levels it names, in the order it runs them.
    pub fn levels(self) -> [Level; 3] {
        [self.below, self.above, self.beyond]
    }
}

/// A route's three ranges of lengths: below `from`, from there below `until`, from `until` on.
#[derive(Clone, Copy)]
pub(super) enum Range {
    Below,
    Above,
    Beyond,
}

/// What the dispatch runs on one CPU under one cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Into another buffer.
    pub distinct: Route,
    /// In place (`src == dst`: every unmask, and ws's mask of a frame it owns).
    pub in_place: Route,
    /// From this many bytes a distinct output that shares no byte with its source is written with
    /// streaming stores (x86-64 only; `usize::MAX`: never).
    pub stream_from: usize,
}

const KIB: usize = 1 << 10;
const MIB: usize = 1 << 20;

/// The last-level cache assumed when the CPU reports none: Zen 3, Zen 4 and Zen 5's, with which the
/// streaming threshold is the 8 MiB measured on all three.
const DEFAULT_LLC: usize = 32 * MIB;

/// The second-level cache assumed when the CPU reports none: Zen 4 and Zen 5's.
const DEFAULT_L2: usize = MIB;

/// The plan for `cpu` when `widest` is the widest level it may run and `avx2` says whether AVX2 is
/// available beside it. The figures behind each rule are in benchmark/results/kernel/ (this project's
/// machines) and benchmark/README.md.
pub fn plan(cpu: &Cpu, widest: Level, avx2: bool) -> Plan {
    let (distinct, in_place) = match (widest, cpu.vendor, cpu.family) {
        // AMD family 25 with AVX-512 (Zen 4: 512-bit instructions on 256-bit units). 8 hot pairs in
        // turn: the AVX-512 level is ahead or level below 256 B into another buffer (its narrower
        // edges) and in place (1.1x at 64 B, 0.88-1.03x at 128 B over several runs); AVX2 from 256 B,
        // ahead into another buffer (1.09-1.12x at 256 B-1 KiB), level in place, and level from 4 KiB.
        // Only a call over the very bytes the call before it stored runs AVX-512 ~1.4x slower in
        // place (its 64-byte pieces split across lines): a chain no caller makes.
        (Level::Avx512, Vendor::Amd, 25) if avx2 => {
            let route = Route::split(Level::Avx512, 256, Level::Avx2);
            (route, route)
        }
        // Intel with AVX-512 on 512-bit units (Sapphire Rapids: results/kernel/intel-xeon-f6-m167.md).
        // Into another buffer AVX-512 leads while the pair fits in the L1 data cache (1.2-1.4x AVX2 at
        // 4-24 KiB) and when the output is not in cache, as a sender's fresh output is not (1.04-1.11x,
        // pairs beyond the cache and outputs beyond it). It trails while the source is in the L2 but
        // not the L1: by 3-7 % with one pair from 32 KiB, by ~10 % at 4-16 KiB when bench.js rotates
        // source and output through the L2; a payload the caller has just written is in the L1.
        // Streamed, AVX2's 256-bit non-temporal stores are ahead (1.2x beyond the cache). In place
        // AVX-512 leads in the L1 (1.3x) and beyond the cache (up to 1.3x) and is level between. Every
        // Intel CPU with AVX-512 takes this rule; only one Sapphire Rapids VM was measured.
        (Level::Avx512, Vendor::Intel, _) if avx2 => {
            (Route::split(Level::Avx512, stream_from(cpu), Level::Avx2), Route::one(Level::Avx512))
        }
        // AMD family 26 with AVX-512 (Zen 5: 512-bit units). AVX-512 leads while a call's working set
        // (a distinct call's source and output, an in-place call's one buffer) stays in the L2 cache:
        // 1.1-1.3x AVX2 at 16 and 256 KiB into another buffer and at 16-512 KiB in place. Beyond the L2,
        // into another buffer, it gains 0-3 % with one pair but loses 2-20 % with buffers beyond the
        // cache, so AVX2 runs from there. In place it stays level or ahead until the buffer passes half
        // the last-level cache; from there AVX2 is level or up to 4 % ahead. Below 4 KiB this rule is
        // unmeasured with 8 hot pairs in turn (one pair read AVX2 ahead there, as it did on Zen 4).
        (Level::Avx512, Vendor::Amd, 26) if avx2 => (
            Route::split(Level::Avx512, cpu.l2.unwrap_or(DEFAULT_L2) / 2, Level::Avx2),
            Route::split(Level::Avx512, cpu.llc.unwrap_or(DEFAULT_LLC) / 2, Level::Avx2),
        ),
        // AMD Zen 3 (family 25 without AVX-512). Into another buffer AVX2 leads while one buffer fits in
        // the L2 cache, 512 KiB where the CPU reports none (1.1-1.6x SSE2 at 4-256 KiB, one pair); past
        // it SSE2's 16-byte stores fill output lines that are not in cache 1.1-1.25x faster (16 KiB-8 MiB
        // into fresh outputs) and keep level with AVX2 in cache, until streaming stores take over, where
        // AVX2's are ahead (1.1-1.15x beyond the cache). In place AVX2 leads at every size.
        (Level::Avx2, Vendor::Amd, 25) if zen3(cpu) => (
            Route::split(Level::Avx2, cpu.l2.unwrap_or(512 * KIB), Level::Sse2)
                .then(stream_from(cpu), Level::Avx2),
            Route::one(Level::Avx2),
        ),
        // Everything else (AVX2-only Intel, other vendors, other architectures): the widest level, as
        // nothing measured says otherwise.
        _ => (Route::one(widest), Route::one(widest)),
    };
    Plan { distinct, in_place, stream_from: stream_from(cpu) }
}

/// Zen 3's models of family 25 (Zen 4's are 0x10-0x1f, 0x60-0x7f and 0xa0-0xaf).
fn zen3(cpu: &Cpu) -> bool {
    cpu.vendor == Vendor::Amd && cpu.family == 25 && matches!(cpu.model, 0x00..=0x0f | 0x20..=0x5f)
}

/// Streaming pays once the output cannot stay in cache anyway: then a normal store only adds a read of
/// each output line from memory, while a streamed output that would have stayed in cache must be read
/// back from memory by whoever reads it next (ws writes the frame to the socket right after). A call's
/// working set is its source and its output: measured, streaming starts to pay when the two together
/// pass half the last-level cache, so from a quarter of it per output (Zen 4, 32 MiB, one pair: 0.6x
/// at 4 MiB, 0.93x at 8 MiB, 1.3x at 16 MiB; 1.15x at 12 MiB in an earlier run), as glibc's memcpy
/// takes it; but from [`STREAM_FROM_AT_MOST`] whatever the CPU reports.
pub(super) fn stream_from(cpu: &Cpu) -> usize {
    (cpu.llc.unwrap_or(DEFAULT_LLC) / 4).min(STREAM_FROM_AT_MOST)
}

/// A last-level cache this large is a whole socket's, shared by many cores (and, in a VM, by other
/// guests): Sapphire Rapids reporting 480 MiB keeps less for one core than a quarter of that suggests.
/// There, one pair, streaming is 0.84x at 36 MiB per output and 1.2-1.5x from 40 MiB. A CPU reporting
/// under 160 MiB streams from a quarter of it, unmeasured on Intel (benchmark/README.md).
const STREAM_FROM_AT_MOST: usize = 40 * MIB;

#[cfg(target_arch = "x86_64")]
fn read() -> Cpu {
    use core::arch::x86_64::{__cpuid, __cpuid_count, CpuidResult};

    let leaf0 = __cpuid(0);
    let mut name = [0u8; 12];
    for (chunk, word) in name.chunks_exact_mut(4).zip([leaf0.ebx, leaf0.edx, leaf0.ecx]) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    let vendor = match &name {
        b"GenuineIntel" => Vendor::Intel,
        b"AuthenticAMD" => Vendor::Amd,
        _ => Vendor::Other,
    };
    let eax = __cpuid(1).eax;
    let base_family = (eax >> 8) & 0xf;
    let family = base_family + if base_family == 0xf { (eax >> 20) & 0xff } else { 0 };
    let extended_model = if base_family == 0xf || (base_family == 6 && vendor == Vendor::Intel) {
        (eax >> 16) & 0xf
    } else {
        0
    };
    let model = ((eax >> 4) & 0xf) | (extended_model << 4);

    // Leaf 4 (Intel) and 0x8000001D (AMD, with the topology extensions) describe one cache per subleaf
    // in the same layout, until a subleaf of type 0.
    let max_extended = __cpuid(0x8000_0000).eax;
    let topology_extensions =
        max_extended >= 0x8000_0001 && __cpuid(0x8000_0001).ecx & (1 << 22) != 0;
    let leaf = match vendor {
        Vendor::Intel if leaf0.eax >= 4 => Some(4),
        _ if topology_extensions && max_extended >= 0x8000_001d => Some(0x8000_001d),
        _ => None,
    };
    let (mut l1d, mut l2, mut llc) = (None, None, None);
    let mut llc_level = 0;
    for subleaf in 0..16 {
        let Some(leaf) = leaf else { break };
        let CpuidResult { eax, ebx, ecx, .. } = __cpuid_count(leaf, subleaf);
        let kind = eax & 0x1f;
        if kind == 0 {
            break;
        }
        let level = (eax >> 5) & 7;
        let ways = (ebx >> 22) as usize + 1;
        let partitions = ((ebx >> 12) & 0x3ff) as usize + 1;
        let line = (ebx & 0xfff) as usize + 1;
        let sets = ecx as usize + 1;
        let size = ways * partitions * line * sets;
        // Kinds: 1 data, 2 instruction, 3 unified.
        match (level, kind) {
            (1, 1) => l1d = Some(size),
            (2, 1 | 3) => l2 = Some(size),
            _ => {}
        }
        if kind != 2 && level > llc_level {
            llc_level = level;
            llc = Some(size);
        }
    }
    Cpu { vendor, family, model, l1d, l2, llc }
}
