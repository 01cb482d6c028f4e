//! `npm run bench:kernel`: the kernel alone, every level this CPU runs beside the dispatch the addon calls
//! and its choice; benchmark/README.md says how it measures. Prints markdown; `-- --save` writes it to
//! `benchmark/results/kernel/<cpu>.md`, else to `target/bench-results/`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant, SystemTime};

use bufferutil_simd::kernel::{Cpu, Kernel, Level};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;
/// Sizes where the call's fixed costs decide, timed on [`L1_PAIRS`] pairs in the L1 cache only.
const SMALL: [usize; 7] = [16, 32, 48, 64, 128, 256, KIB];
/// Hot pairs small sizes take in turn: so that no call reads what the one before it just wrote (in place on
/// one buffer, each call would wait on the last one's stores, a chain no caller makes).
const L1_PAIRS: usize = 8;
/// Sizes from the L1 data cache to well past the last-level cache, in KiB.
const LARGE_KIB: [usize; 10] = [4, 16, 64, 256, 1024, 4096, 8192, 16384, 32768, 65536];
const KEY: [u8; 4] = [0x6d, 0xb6, 0xb2, 0x80];
/// Where a distinct mask writes in its output (as ws, after a 6-byte header); the tables' titles name it.
const OUTPUT_OFFSET: usize = 6;

/// A column: its kernel and name. The dispatch is the last column; `+nt` / `-nt` are streaming variants.
type Column = (Kernel, &'static str);

/// What a case runs over: `slots` pairs, `stride` apart, used in turn, `size` bytes in place or not; with
/// `one_source`, the outputs rotate but the source stays the first slot's.
struct Set {
    src: *mut u8,
    dst: *mut u8,
    stride: usize,
    slots: usize,
    size: usize,
    in_place: bool,
    one_source: bool,
}

/// One run: `calls` calls of `kernel` (the dispatch through `mask_raw`, a level through
/// `mask_raw_unshortened`), rotating through the set's slots from `slot`; ns per call.
fn run(kernel: Kernel, dispatch: bool, set: &Set, calls: u64, slot: &mut usize) -> f64 {
    let started = Instant::now();
    for _ in 0..calls {
        let at = *slot * set.stride;
        *slot = (*slot + 1) % set.slots;
        // SAFETY: slot `at` holds `size` bytes of source and `size` past `OUTPUT_OFFSET` of output, both inside
        // the arena (main sized the slots); no reference to the arena is live.
        unsafe {
            let src = black_box(set.src.add(if set.one_source { 0 } else { at }));
            let dst = if set.in_place { src } else { black_box(set.dst.add(at + OUTPUT_OFFSET)) };
            if dispatch {
                kernel.mask_raw(src, dst, black_box(set.size), black_box(KEY));
            } else {
                kernel.mask_raw_unshortened(src, dst, black_box(set.size), black_box(KEY));
            }
        }
    }
    started.elapsed().as_nanos() as f64 / calls as f64
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Per column, its ns per call in each round: calls per run doubled until a run lasts about `run_time` (which
/// also warms caches and clocks), then rounds running every column once, in an order shuffled per round.
fn measure(columns: &[Column], set: &Set, timing: (Duration, usize)) -> Vec<Vec<f64>> {
    let (run_time, rounds) = (timing.0.as_nanos() as f64, timing.1);
    let last = columns.len() - 1;
    let calls: Vec<u64> = (0..columns.len())
        .map(|c| {
            let (mut calls, mut slot) = (1u64, 0);
            loop {
                let ns = run(columns[c].0, c == last, set, calls, &mut slot) * calls as f64;
                if ns >= run_time / 2.0 || calls >= 1 << 30 {
                    return ((calls as f64 * run_time / ns.max(1.0)) as u64).max(1);
                }
                calls *= 2;
            }
        })
        .collect();
    // A new order each round, so that what one column leaves in the caches (a streamed output, or a cached
    // one a streaming store must evict) does not always weigh on the same next one.
    let mut per_round = vec![Vec::with_capacity(rounds); columns.len()];
    let (mut slot, mut order) = (0, (0..columns.len()).collect::<Vec<_>>());
    let mut rng = StdRng::seed_from_u64(1);
    for _ in 0..rounds {
        order.shuffle(&mut rng);
        for &c in &order {
            per_round[c].push(run(columns[c].0, c == last, set, calls[c], &mut slot));
        }
    }
    per_round
}

fn format_size(size: usize) -> String {
    match size {
        s if s >= MIB => format!("{} MiB", s / MIB),
        s if s >= KIB => format!("{} KiB", s / KIB),
        s => format!("{s} B"),
    }
}

/// Three significant digits, like bench.js.
fn format_number(value: f64) -> String {
    let decimals = usize::from(value < 100.0) + usize::from(value < 10.0);
    format!("{value:.decimals$}")
}

fn format_time(ns: f64) -> String {
    match ns {
        ns if ns >= 999_500.0 => format!("{} ms", format_number(ns / 1e6)),
        ns if ns >= 999.5 => format!("{} µs", format_number(ns / 1e3)),
        ns => format!("{} ns", format_number(ns)),
    }
}

/// The CPU's brand string (CPUID 0x80000002–4), or "unknown CPU".
fn brand() -> String {
    #[allow(unused_mut)] // filled on x86-64 only
    let mut bytes = Vec::new();
    #[cfg(target_arch = "x86_64")]
    if std::arch::x86_64::__cpuid(0x8000_0000).eax >= 0x8000_0004 {
        for r in (0x8000_0002..=0x8000_0004).map(std::arch::x86_64::__cpuid) {
            bytes.extend([r.eax, r.ebx, r.ecx, r.edx].map(u32::to_le_bytes).concat());
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    let text = text.trim_matches(|c: char| c == '\0' || c.is_whitespace());
    if text.is_empty() { "unknown CPU" } else { text }.to_string()
}

/// The file name of this CPU's results: its brand's words (but a few generic ones and the (R), (TM) marks),
/// family and model.
fn slug(cpu: &Cpu, brand: &str) -> String {
    const GENERIC: &str = "processor cpu core with radeon graphics r tm";
    let (lower, mut slug) = (brand.to_ascii_lowercase(), String::new());
    for word in lower.split(|c: char| !c.is_ascii_alphanumeric()) {
        if !word.is_empty() && !GENERIC.split(' ').any(|generic| generic == word) {
            slug.extend([word, "-"]);
        }
    }
    format!("{slug}f{}-m{}", cpu.family, cpu.model)
}

/// Today's date (UTC) as YYYY-MM-DD: civil from days (Howard Hinnant's algorithm).
fn today() -> String {
    let secs = SystemTime::UNIX_EPOCH.elapsed().map_or(0, |d| d.as_secs());
    let z = (secs / 86_400) as i64 + 719_468;
    let (era, doe) = (z.div_euclid(146_097), z.rem_euclid(146_097));
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

fn main() {
    let quick =
        std::env::var("BENCH_QUICK").is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true"));
    let asked = std::env::var("BENCH_ROUNDS").map_or(0, |n| n.parse().unwrap_or(0));
    let (run_us, default) = if quick { (300, 3) } else { (2000, 15) };
    let rounds = if asked > 0 { asked } else { default };
    let timing = (Duration::from_micros(run_us), rounds);
    let runs = ["2 ms runs", "quick: 0.3 ms runs"][usize::from(quick)];
    let (cpu, brand, dispatch) = (Cpu::this(), brand(), Kernel::best(None));
    // Each level as `Kernel::of` makes it (streaming from the same size as the dispatch), then for large
    // distinct outputs each SIMD level streaming always (`+nt`) and never (`-nt`).
    let (mut levels, mut streamed): (Vec<Column>, Vec<Column>) = (Vec::new(), Vec::new());
    for level in Level::ALL.into_iter().rev().filter(|l| l.is_available()) {
        let kernel = Kernel::of(level).expect("an available level");
        levels.push((kernel, level.name()));
        if cfg!(target_arch = "x86_64") && level != Level::Scalar {
            for (from, mark) in [(0, "+nt"), (usize::MAX, "-nt")] {
                let name = String::leak(format!("{}{mark}", level.name()));
                streamed.push((kernel.with_streaming(from), name));
            }
        }
    }

    // The arena: at least four 64 MiB pairs, and at least twice the last-level cache per side.
    let len = (2 * cpu.llc.unwrap_or(32 * MIB)).clamp(256 * MIB, 1024 * MIB);
    let mut src: Vec<u8> =
        (0..len + 64 * KIB).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let mut dst = vec![1u8; len + 64 * KIB];

    let mut out = String::new();
    let mut emit = |text: String| {
        print!("{text}");
        out.push_str(&text);
    };
    let (family, model, date) = (cpu.family, cpu.model, today());
    let (arena, level) = (format_size(len), dispatch.level().name());
    let stream_from = format_size(dispatch.stream_from().min(1 << 62));
    let [l1d, l2, llc] = [cpu.l1d, cpu.l2, cpu.llc].map(|s| s.map_or("?".into(), format_size));
    emit(format!(
        "### {brand} (family {family}, model {model}), {date}\n\nL1d {l1d}, L2 {l2}, last-level cache {llc} \
         (CPUID); dispatch: level {level}, streams a distinct output from {stream_from}. {runs} of \
         {rounds} rounds per case; GB/s = bytes / median ns; a level streams from the same size as the dispatch, `+nt` at every size, `-nt` never; \
         **best of all**, *best level* (where they differ); ratios: the dispatch's speed ÷ that column's, \
         median of per-round ratios; \"own level\": the column of the level the dispatch runs at that \
         size, the same code, so its distance from 1 is the noise of the run. Arena for \"beyond the \
         cache\": {arena} per side.\n"
    ));
    let large = LARGE_KIB.map(|k| k * KIB);
    for (op, title) in [
        ("mask", "mask into another buffer at offset 6"),
        ("in-place", "in place (mask with src == dst, as unmask)"),
    ] {
        let in_place = op == "in-place";
        for (sizes, set_id, set_name) in [
            (&SMALL[..], "l1-pairs", "8 pairs in the L1 cache, in turn"),
            (&large[..], "one-pair", "one pair"),
            (&large[..], "beyond-cache", "pairs beyond the cache"),
            // One source in cache into outputs beyond it, as a sender masks the payload it was just handed.
            (&large[..], "outputs-beyond", "outputs beyond the cache"),
        ] {
            let (one_source, in_l1) = (set_id == "outputs-beyond", set_id == "l1-pairs");
            let beyond = one_source || set_id == "beyond-cache";
            if in_place && one_source {
                continue;
            }
            // Streaming is for large distinct outputs only (an `sfence` per call would decide the rest).
            let mut columns = levels.clone();
            if !in_place && sizes.len() == large.len() {
                columns.extend(&streamed);
            }
            columns.push((dispatch, "dispatch"));
            let names: Vec<&str> = columns.iter().map(|c| c.1).collect();
            let (heads, aligns) = (names.join(" | "), "---:|".repeat(names.len()));
            emit(format!(
                "\n#### {title}, {set_name}\n\n| size | {heads} | choice | ÷ best level | ÷ best of all | \
                 ÷ own level |\n|---:|{aligns}---|---:|---:|---:|\n"
            ));
            for &size in sizes {
                // Pairs a page apart; hot pairs, and one source's outputs, one after another, as fresh
                // allocations lie.
                let stride = if one_source || in_l1 {
                    (size + OUTPUT_OFFSET).next_multiple_of(64)
                } else {
                    size.next_multiple_of(4 * KIB) + 4 * KIB
                };
                let slots = match (beyond, in_l1) {
                    (true, _) => (len / stride).max(1),
                    (_, true) => L1_PAIRS,
                    _ => 1,
                };
                let set = Set {
                    src: src.as_mut_ptr(),
                    dst: dst.as_mut_ptr(),
                    stride,
                    slots,
                    size,
                    in_place,
                    one_source,
                };
                let per_round = measure(&columns, &set, timing);
                let ns: Vec<f64> = per_round.iter().map(|r| median(r.clone())).collect();
                let last = columns.len() - 1;
                // The dispatch's speed ÷ column `c`'s: the median of per-round ratios.
                let ratio = |c: usize| {
                    let pairs = per_round[c].iter().zip(&per_round[last]);
                    median(pairs.map(|(t, d)| t / d).collect())
                };
                let best = |all: bool| {
                    let candidates = (0..last).filter(|&c| all || !names[c].ends_with("nt"));
                    candidates.min_by(|&a, &b| ns[a].total_cmp(&ns[b])).expect("a level column")
                };
                let (best_level, best_of_all) = (best(false), best(true));
                // The column of the level the dispatch runs at this size: the same code.
                let choice = dispatch.choice(size, in_place);
                let own = names
                    .iter()
                    .position(|&n| n == choice.level.name())
                    .expect("a column per level");
                let mut line = format!("| {} |", format_size(size));
                for (c, ns) in ns.iter().enumerate() {
                    let cell =
                        format!("{} · {}", format_number(size as f64 / ns), format_time(*ns));
                    let mark = match c {
                        c if c == best_of_all => "**",
                        c if c == best_level => "*",
                        _ => "",
                    };
                    let _ = write!(line, " {mark}{cell}{mark} |");
                }
                let streams = if choice.streams { "+nt" } else { "" };
                let (r1, r2, r3) = (ratio(best_level), ratio(best_of_all), ratio(own));
                emit(format!(
                    "{line} {}{streams} | {r1:.3} | {r2:.3} | {r3:.3} |\n",
                    choice.level.name()
                ));
            }
        }
    }
    let save = std::env::args().any(|arg| arg == "--save") && !quick;
    let dir = if save { "benchmark/results/kernel" } else { "target/bench-results" };
    let dir = format!("{}/{dir}", env!("CARGO_MANIFEST_DIR"));
    let name = slug(&cpu, &brand) + if quick { "-quick" } else { "" };
    let path = format!("{dir}/{name}.md");
    match std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, &out)) {
        Ok(()) => println!("wrote {path}"),
        Err(error) => eprintln!("could not write {path}: {error}"),
    }
}
