//! The masking kernel alone, without Node: every level this CPU runs, each with and without streaming
//! stores, beside the dispatch (`Kernel::best(None)`, what the addon calls) and the choice it makes at
//! each size, so kernel speed and Node-API call overhead can be told apart and the dispatch can be held
//! against the best single level.
//!
//! `cargo bench --bench kernel` (`npm run bench:kernel`); `BENCH_QUICK=1` for a short run, `BENCH_ROUNDS=N`
//! for N rounds instead of 15 (a steadier median on a loaded machine). Per case,
//! rounds measure every target once each, in an order that rotates by round (load that comes and goes
//! on a shared machine then slows all alike); a figure is the median over rounds of one run's ns per call
//! (a run: enough calls to last a few milliseconds), and "÷ best level" the median of the per-round
//! speed ratios to the level with the best median ("÷ best of all": streaming variants included; "÷ own
//! level": to the column that runs the same code as the dispatch, which only noise moves from 1). From
//! 4 KiB each size runs over two working sets: one buffer pair used again and again, and pairs rotating
//! through an arena well past the last-level cache.
//! Prints markdown; `-- --save` writes it and the figures as JSON to
//! `benchmark/results/kernel/<cpu>.{md,json}` (one pair of files per CPU model), else to
//! `target/bench-results/`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant, SystemTime};

use bufferutil_simd::kernel::{Cpu, Kernel, Level};

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;
const GIB: usize = 1024 * MIB;
/// Sizes where the call's fixed costs decide, timed on one hot buffer pair only.
const SMALL: [usize; 7] = [16, 32, 48, 64, 128, 256, KIB];
/// Sizes from the L1 data cache to well past the last-level cache.
const LARGE: [usize; 10] = [
    4 * KIB,
    16 * KIB,
    64 * KIB,
    256 * KIB,
    MIB,
    4 * MIB,
    8 * MIB,
    16 * MIB,
    32 * MIB,
    64 * MIB,
];
const KEY: [u8; 4] = [0x6d, 0xb6, 0xb2, 0x80];
/// Where a distinct mask writes in its output, as ws does after a 6-byte frame header (and as bench.js).
const OUTPUT_OFFSET: usize = 6;

#[derive(Clone, Copy, PartialEq)]
enum Op {
    /// `src` into a distinct buffer at `OUTPUT_OFFSET`.
    Mask,
    /// In place: `src == dst`, which is also what `unmask` does.
    InPlace,
}

/// One column: a level with streaming never or always, or the dispatch.
#[derive(Clone, Copy)]
struct Target {
    kernel: Kernel,
    name: &'static str,
    /// A streaming variant: counted in "÷ best of all", not in "÷ best level".
    variant: bool,
    dispatch: bool,
}

/// The buffers a case runs over: `slots` pairs, `stride` apart, used in turn.
struct Set {
    src: *mut u8,
    dst: *mut u8,
    stride: usize,
    slots: usize,
}

/// One run: `calls` calls of `target` on `size` bytes, rotating through the set's slots from `slot`.
fn run(target: Target, op: Op, set: &Set, size: usize, calls: u64, slot: &mut usize) -> f64 {
    let started = Instant::now();
    for _ in 0..calls {
        let at = *slot * set.stride;
        *slot = (*slot + 1) % set.slots;
        // SAFETY: slot `at` holds `size` bytes of source and `size` past `OUTPUT_OFFSET` of output, both
        // inside the arena (`set_for` sized the slots); no reference to the arena is live.
        unsafe {
            let src = black_box(set.src.add(at));
            let dst = match op {
                Op::Mask => black_box(set.dst.add(at + OUTPUT_OFFSET)),
                Op::InPlace => src,
            };
            if target.dispatch {
                target
                    .kernel
                    .mask_raw(src, dst, black_box(size), black_box(KEY));
            } else {
                target
                    .kernel
                    .mask_raw_unshortened(src, dst, black_box(size), black_box(KEY));
            }
        }
    }
    started.elapsed().as_nanos() as f64 / calls as f64
}

/// Calls per run so that a run lasts about `run_time` (doubling from 1; also warms caches and clocks).
fn calibrate(target: Target, op: Op, set: &Set, size: usize, run_time: Duration) -> u64 {
    let (mut calls, mut slot) = (1u64, 0);
    loop {
        let ns = run(target, op, set, size, calls, &mut slot) * calls as f64;
        if ns >= run_time.as_nanos() as f64 / 2.0 || calls >= 1 << 30 {
            return ((calls as f64 * run_time.as_nanos() as f64 / ns.max(1.0)) as u64).max(1);
        }
        calls *= 2;
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// One case: per target the median ns per call over `rounds`, and the dispatch's median per-round ratio
/// (speed) to the best of the other targets and to `own`, the column that runs the same code as it.
fn case(
    targets: &[Target],
    own: usize,
    op: Op,
    set: &Set,
    size: usize,
    timing: (Duration, usize),
) -> Row {
    let (run_time, rounds) = timing;
    let calls: Vec<u64> = targets
        .iter()
        .map(|&target| calibrate(target, op, set, size, run_time))
        .collect();
    let mut per_round = vec![Vec::with_capacity(rounds); targets.len()];
    let mut slot = 0;
    for round in 0..rounds {
        for k in 0..targets.len() {
            let t = (k + round) % targets.len();
            per_round[t].push(run(targets[t], op, set, size, calls[t], &mut slot));
        }
    }
    let ns: Vec<f64> = per_round.iter().map(|r| median(&mut r.clone())).collect();
    let dispatch = targets
        .iter()
        .position(|t| t.dispatch)
        .expect("a dispatch column");
    let ratio_to = |t: usize| {
        let mut ratios: Vec<f64> = (0..rounds)
            .map(|r| per_round[t][r] / per_round[dispatch][r])
            .collect();
        median(&mut ratios)
    };
    let best_of = |variants: bool| {
        (0..targets.len())
            .filter(|&t| t != dispatch && (variants || !targets[t].variant))
            .min_by(|&a, &b| ns[a].total_cmp(&ns[b]))
            .expect("a level column")
    };
    let (best, best_of_all) = (best_of(false), best_of(true));
    Row {
        best,
        ratio: ratio_to(best),
        best_of_all,
        ratio_of_all: ratio_to(best_of_all),
        ratio_to_own: ratio_to(own),
        ns,
    }
}

struct Row {
    ns: Vec<f64>,
    /// The level column with the best median, and the dispatch's speed ratio to it.
    best: usize,
    ratio: f64,
    /// The same over every column, streaming variants included.
    best_of_all: usize,
    ratio_of_all: f64,
    /// The dispatch's speed ratio to the column that runs the same code: what the measurement's noise
    /// alone makes of two equal columns.
    ratio_to_own: f64,
}

/// A working set: `pairs` is 1 for one hot pair, else the arena holds as many slots as fit.
fn set_for(arena: &mut Arena, size: usize, beyond: bool) -> Set {
    let stride = size.next_multiple_of(4 * KIB) + 4 * KIB;
    let slots = if beyond { arena.len / stride } else { 1 };
    Set {
        src: arena.src.as_mut_ptr(),
        dst: arena.dst.as_mut_ptr(),
        stride,
        slots: slots.max(1),
    }
}

struct Arena {
    src: Vec<u8>,
    dst: Vec<u8>,
    len: usize,
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
    let decimals = match value {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    format!("{value:.decimals$}")
}

fn format_time(ns: f64) -> String {
    match ns {
        ns if ns >= 999_500.0 => format!("{} ms", format_number(ns / 1e6)),
        ns if ns >= 999.5 => format!("{} µs", format_number(ns / 1e3)),
        ns => format!("{} ns", format_number(ns)),
    }
}

fn choice_name(kernel: Kernel, size: usize, op: Op) -> String {
    let choice = kernel.choice(size, op == Op::InPlace);
    format!(
        "{}{}",
        choice.level.name(),
        if choice.streams { "+nt" } else { "" }
    )
}

/// The CPU's brand string (CPUID 0x80000002–4), or "unknown CPU".
fn brand() -> String {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::__cpuid;
        if __cpuid(0x8000_0000).eax >= 0x8000_0004 {
            let mut bytes = Vec::new();
            for leaf in 0x8000_0002..=0x8000_0004 {
                let r = __cpuid(leaf);
                for word in [r.eax, r.ebx, r.ecx, r.edx] {
                    bytes.extend_from_slice(&word.to_le_bytes());
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            return text
                .trim_matches(|c: char| c == '\0' || c.is_whitespace())
                .to_string();
        }
    }
    "unknown CPU".to_string()
}

/// The file name of this CPU's results: its brand, family and model.
fn slug(cpu: &Cpu, brand: &str) -> String {
    let mut slug = String::new();
    for word in brand
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let word = word.to_ascii_lowercase();
        if !["processor", "cpu", "core", "with", "radeon", "graphics"].contains(&word.as_str()) {
            let _ = write!(slug, "{word}-");
        }
    }
    format!("{slug}f{}-m{}", cpu.family, cpu.model)
}

/// Today's date (UTC) as YYYY-MM-DD.
fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // Civil from days (Howard Hinnant's algorithm).
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

fn main() {
    let quick = std::env::var("BENCH_QUICK").is_ok_and(|value| value == "1" || value == "true");
    // BENCH_ROUNDS=N: more rounds for a steadier median on a loaded machine.
    let rounds = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .filter(|&n: &usize| n > 0);
    let timing = if quick {
        (Duration::from_micros(300), rounds.unwrap_or(3))
    } else {
        (Duration::from_millis(2), rounds.unwrap_or(15))
    };
    let cpu = Cpu::this();
    let brand = brand();
    let dispatch = Kernel::best(None);
    // Each level as `Kernel::of` makes it (streaming from the same size as the dispatch), then for large
    // distinct outputs each SIMD level streaming always (`+nt`) and never (`-nt`).
    let mut targets = Vec::new();
    let mut streamed = Vec::new();
    for level in Level::ALL.into_iter().rev().filter(|l| l.is_available()) {
        let kernel = Kernel::of(level).expect("an available level");
        targets.push(Target {
            kernel,
            name: level.name(),
            variant: false,
            dispatch: false,
        });
        if cfg!(target_arch = "x86_64") && level != Level::Scalar {
            for (from, mark) in [(0, "+nt"), (usize::MAX, "-nt")] {
                streamed.push(Target {
                    kernel: kernel.with_streaming(from),
                    name: String::leak(format!("{}{mark}", level.name())),
                    variant: true,
                    dispatch: false,
                });
            }
        }
    }
    let dispatch_target = Target {
        kernel: dispatch,
        name: "dispatch",
        variant: false,
        dispatch: true,
    };

    // The arena: at least four 64 MiB pairs, and at least twice the last-level cache per side.
    let llc = cpu.llc.unwrap_or(32 * MIB);
    let len = (2 * llc).clamp(256 * MIB, GIB);
    let mut arena = Arena {
        src: (0..len + 64 * KIB)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect(),
        dst: vec![1; len + 64 * KIB],
        len,
    };

    let mut out = String::new();
    let _ = writeln!(
        out,
        "### {brand} (family {}, model {}), {}\n\nL1d {}, L2 {}, last-level cache {} (CPUID); dispatch: \
         level {}, streams a distinct output from {}. {} of {} rounds per case; GB/s = bytes / median \
         ns; a level streams from the same size as the dispatch, `+nt` at every size, `-nt` never; \
         **best of all**, *best level* (where they differ); ratios: the dispatch's speed ÷ that column's, \
         median of per-round ratios; \"own level\": the column of the level the dispatch runs at that \
         size, the same code, so its distance from 1 is the noise of the run. Arena for \"beyond the \
         cache\": {} per side.",
        cpu.family,
        cpu.model,
        today(),
        cpu.l1d.map_or("?".into(), format_size),
        cpu.l2.map_or("?".into(), format_size),
        cpu.llc.map_or("?".into(), format_size),
        dispatch.level().name(),
        format_size(dispatch.stream_from().min(1 << 62)),
        if quick { "quick: 0.3 ms runs" } else { "2 ms runs" },
        timing.1,
        format_size(len),
    );
    print!("{out}");
    let mut json = format!(
        "{{\n \"cpu\": \"{brand}\", \"family\": {}, \"model\": {}, \"date\": \"{}\",\n \"unit\": \"ns per call (median)\",\n \"results\": [\n",
        cpu.family,
        cpu.model,
        today()
    );
    let mut first = true;
    for op in [Op::Mask, Op::InPlace] {
        for (sizes, beyond) in [(&SMALL[..], false), (&LARGE[..], false), (&LARGE[..], true)] {
            // Streaming is for large distinct outputs only (an `sfence` per call would decide the rest).
            let mut columns = targets.clone();
            if op == Op::Mask && sizes.len() == LARGE.len() {
                columns.extend(streamed.iter().copied());
            }
            columns.push(dispatch_target);
            let what = match op {
                Op::Mask => format!("mask into another buffer at offset {OUTPUT_OFFSET}"),
                Op::InPlace => "in place (mask with src == dst, as unmask)".to_string(),
            };
            let set_name = if beyond {
                "pairs beyond the cache"
            } else {
                "one pair"
            };
            let names: Vec<&str> = columns.iter().map(|t| t.name).collect();
            let header = format!(
                "\n#### {what}, {set_name}\n\n| size | {} | choice | ÷ best level | ÷ best of all | ÷ own level |\n|---:|{}---|---:|---:|---:|\n",
                names.join(" | "),
                "---:|".repeat(names.len())
            );
            print!("{header}");
            out.push_str(&header);
            for &size in sizes {
                let set = set_for(&mut arena, size, beyond);
                // The column of the level the dispatch runs at this size (streaming where it does).
                let choice = dispatch.choice(size, op == Op::InPlace);
                let own = columns
                    .iter()
                    .position(|t| !t.variant && !t.dispatch && t.name == choice.level.name())
                    .expect("a column per available level");
                let row = case(&columns, own, op, &set, size, timing);
                let mut line = format!("| {} |", format_size(size));
                for (t, ns) in row.ns.iter().enumerate() {
                    let cell =
                        format!("{} · {}", format_number(size as f64 / ns), format_time(*ns));
                    let cell = if t == row.best_of_all {
                        format!("**{cell}**")
                    } else if t == row.best {
                        format!("*{cell}*")
                    } else {
                        cell
                    };
                    let _ = write!(line, " {cell} |");
                    let _ = write!(
                        json,
                        "{}  {{ \"op\": \"{}\", \"set\": \"{}\", \"target\": \"{}\", \"size\": {size}, \"medianNs\": {ns:.3} }}",
                        if first { "" } else { ",\n" },
                        if op == Op::Mask { "mask" } else { "in-place" },
                        if beyond { "beyond-cache" } else { "one-pair" },
                        columns[t].name,
                    );
                    first = false;
                }
                let _ = writeln!(
                    line,
                    " {} | {:.3} | {:.3} | {:.3} |",
                    choice_name(dispatch, size, op),
                    row.ratio,
                    row.ratio_of_all,
                    row.ratio_to_own
                );
                out.push_str(&line);
                print!("{line}");
            }
        }
    }
    json.push_str("\n ]\n}\n");
    let save = std::env::args().any(|arg| arg == "--save") && !quick;
    let dir = format!(
        "{}/{}",
        env!("CARGO_MANIFEST_DIR"),
        if save {
            "benchmark/results/kernel"
        } else {
            "target/bench-results"
        }
    );
    let name = format!(
        "{}{}",
        slug(&cpu, &brand),
        if quick { "-quick" } else { "" }
    );
    for (ext, text) in [("md", &out), ("json", &json)] {
        let path = format!("{dir}/{name}.{ext}");
        match std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, text)) {
            Ok(()) => println!("wrote {path}"),
            Err(error) => eprintln!("could not write {path}: {error}"),
        }
    }
}
