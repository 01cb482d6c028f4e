//! The cache sizes the CPU reports, from CPUID's cache-descriptor leaves on x86-64 (leaf 4, else 0x8000001D:
//! one cache per subleaf in the same layout); unknown elsewhere and under Miri (no CPUID). Only the last
//! level is kept: it is all the dispatch reads (`stream_from`).

/// Cache sizes in bytes; `None` where the CPU does not say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Caches {
    /// The last-level cache this core shares, whole, not divided among the cores that share it.
    pub llc: Option<usize>,
}

impl Caches {
    /// The caches of the CPU this process runs on, read once and kept.
    pub fn this() -> Caches {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            static THIS: std::sync::OnceLock<Caches> = std::sync::OnceLock::new();
            *THIS.get_or_init(read)
        }
        #[cfg(any(not(target_arch = "x86_64"), miri))]
        {
            Caches::default()
        }
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
fn read() -> Caches {
    use core::arch::x86_64::{__cpuid, __cpuid_count, CpuidResult};

    // A leaf describes caches if the CPU has it and its first subleaf is a cache (type 1 to 3);
    // 0x8000001D needs the topology extensions (CPUID 0x80000001, ECX bit 22) besides.
    let describes = |leaf: u32| __cpuid_count(leaf, 0).eax & 0x1f != 0;
    let max_extended = __cpuid(0x8000_0000).eax;
    let leaf = if __cpuid(0).eax >= 4 && describes(4) {
        4
    } else if max_extended >= 0x8000_001d
        && __cpuid(0x8000_0001).ecx & (1 << 22) != 0
        && describes(0x8000_001d)
    {
        0x8000_001d
    } else {
        return Caches::default();
    };
    let mut caches = Caches::default();
    let mut llc_level = 0;
    for subleaf in 0..16 {
        let CpuidResult { eax, ebx, ecx, .. } = __cpuid_count(leaf, subleaf);
        // Kinds: 0 no more caches, 1 data, 2 instruction, 3 unified.
        let kind = eax & 0x1f;
        if kind == 0 {
            break;
        }
        let level = (eax >> 5) & 7;
        let ways = (ebx >> 22) as usize + 1;
        let partitions = ((ebx >> 12) & 0x3ff) as usize + 1;
        let line = (ebx & 0xfff) as usize + 1;
        let size = ways * partitions * line * (ecx as usize + 1);
        if kind != 2 && level > llc_level {
            llc_level = level;
            caches.llc = Some(size);
        }
    }
    caches
}
