//! The masking kernel alone, without Node: every SIMD level this CPU runs, at every size `npm run bench`
//! times, so kernel speed and Node-API call overhead can be told apart (Node's ns per call minus this).
//!
//! `cargo bench --bench kernel` (`npm run bench:kernel`); `BENCH_QUICK=1` for a short run. Each figure is
//! the median of several timed runs, each of enough calls to last a few milliseconds. Prints markdown and
//! writes `target/bench-results/kernel.json` (ignored), or with `--save` (`npm run bench:kernel -- --save`)
//! the committed `benchmark/results/kernel.json`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use bufferutil_simd::kernel::{self, Kernel, Level};

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;
const SIZES: [usize; 12] = [
    16,
    32,
    48,
    64,
    128,
    256,
    KIB,
    4 * KIB,
    16 * KIB,
    64 * KIB,
    MIB,
    16 * MIB,
];
const KEY: [u8; 4] = [0x6d, 0xb6, 0xb2, 0x80];
/// Where `mask` writes in its output, as ws does after a 6-byte frame header (and as bench.js times it).
const OUTPUT_OFFSET: usize = 6;

#[derive(Clone, Copy, PartialEq)]
enum Op {
    /// `src` into a distinct `dst` at `OUTPUT_OFFSET`.
    Mask,
    /// In place: `src == dst`, which is also what `unmask` does.
    InPlace,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Mask => "mask",
            Op::InPlace => "in-place",
        }
    }
}

/// What a row measures: one level's kernel, or `kernel::mask`/`unmask` (the widest level, with the
/// short-length path and the indirect call), which is what the addon calls.
#[derive(Clone, Copy)]
enum Target {
    Level(Kernel),
    Dispatch,
}

impl Target {
    fn name(self) -> String {
        match self {
            Target::Level(kernel) => kernel.level().name().to_string(),
            Target::Dispatch => format!("dispatch ({})", Kernel::best(None).level().name()),
        }
    }
}

struct Buffers {
    src: Vec<u8>,
    dst: Vec<u8>,
}

/// One call of `target` on `size` bytes; inputs pass through `black_box` so nothing is hoisted.
#[inline(always)]
fn call(target: Target, op: Op, buffers: &mut Buffers, size: usize) {
    match (target, op) {
        (Target::Level(kernel), Op::Mask) => {
            let src = black_box(buffers.src.as_ptr());
            let dst = black_box(buffers.dst[OUTPUT_OFFSET..].as_mut_ptr());
            // SAFETY: `src` holds `size` bytes and `dst` has `size` bytes past the offset; no references
            // to either are live during the call.
            unsafe { kernel.mask_raw_unshortened(src, dst, black_box(size), black_box(KEY)) };
        }
        (Target::Level(kernel), Op::InPlace) => {
            let ptr = black_box(buffers.src.as_mut_ptr());
            // SAFETY: `ptr` is valid for `size` bytes of reads and writes; in place is allowed.
            unsafe { kernel.mask_raw_unshortened(ptr, ptr, black_box(size), black_box(KEY)) };
        }
        (Target::Dispatch, Op::Mask) => kernel::mask(
            black_box(&buffers.src[..size]),
            black_box(&mut buffers.dst[OUTPUT_OFFSET..OUTPUT_OFFSET + size]),
            black_box(KEY),
        ),
        (Target::Dispatch, Op::InPlace) => {
            kernel::unmask(black_box(&mut buffers.src[..size]), black_box(KEY))
        }
    }
    black_box(&mut *buffers);
}

/// Median ns per call over `runs` timed runs of `calls` calls each.
fn median_ns(
    target: Target,
    op: Op,
    buffers: &mut Buffers,
    size: usize,
    calls: u64,
    runs: usize,
) -> f64 {
    let mut per_call: Vec<f64> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            for _ in 0..calls {
                call(target, op, buffers, size);
            }
            started.elapsed().as_nanos() as f64 / calls as f64
        })
        .collect();
    per_call.sort_by(f64::total_cmp);
    per_call[per_call.len() / 2]
}

/// Calls per run so that a run lasts about `run_time` (doubling from 1; also warms caches and clocks).
fn calibrate(
    target: Target,
    op: Op,
    buffers: &mut Buffers,
    size: usize,
    run_time: Duration,
) -> u64 {
    let mut calls = 1u64;
    loop {
        let started = Instant::now();
        for _ in 0..calls {
            call(target, op, buffers, size);
        }
        let elapsed = started.elapsed();
        if elapsed >= run_time / 2 || calls >= 1 << 30 {
            let scaled = calls as f64 * run_time.as_secs_f64() / elapsed.as_secs_f64().max(1e-9);
            return (scaled as u64).max(1);
        }
        calls *= 2;
    }
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

fn main() {
    let quick = std::env::var("BENCH_QUICK").is_ok_and(|value| value == "1" || value == "true");
    let (run_time, runs) = if quick {
        (Duration::from_micros(300), 3)
    } else {
        (Duration::from_millis(4), 9)
    };
    let targets: Vec<Target> = Level::ALL
        .into_iter()
        .rev()
        .filter_map(Kernel::of)
        .map(Target::Level)
        .chain([Target::Dispatch])
        .collect();

    let mut buffers = Buffers {
        src: vec![0; 16 * MIB],
        dst: vec![0; 16 * MIB + OUTPUT_OFFSET],
    };
    for (i, byte) in buffers.src.iter_mut().enumerate() {
        *byte = (i.wrapping_mul(2_654_435_761) >> 13) as u8;
    }

    println!(
        "kernel-only benchmark: median of {runs} runs of ~{} µs each; GB/s = bytes / median ns",
        run_time.as_micros()
    );
    let mut json = String::from("{\n \"unit\": \"ns per call (median)\",\n \"results\": [\n");
    let mut first = true;
    for op in [Op::Mask, Op::InPlace] {
        let title = match op {
            Op::Mask => format!("mask into a distinct buffer at offset {OUTPUT_OFFSET}"),
            Op::InPlace => "in place (mask with src == dst, i.e. unmask)".to_string(),
        };
        println!("\n#### {title}\n");
        let names: Vec<String> = targets.iter().map(|target| target.name()).collect();
        println!("| size | {} |", names.join(" | "));
        println!("|---:|{}", "---:|".repeat(names.len()));
        for size in SIZES {
            let mut row = format!("| {} |", format_size(size));
            for &target in &targets {
                let calls = calibrate(target, op, &mut buffers, size, run_time);
                let ns = median_ns(target, op, &mut buffers, size, calls, runs);
                let _ = write!(
                    row,
                    " {} · {} |",
                    format_number(size as f64 / ns),
                    format_time(ns)
                );
                let _ = write!(
                    json,
                    "{}  {{ \"op\": \"{}\", \"target\": \"{}\", \"size\": {size}, \"medianNs\": {ns:.3}, \"gbps\": {:.4} }}",
                    if first { "" } else { ",\n" },
                    op.name(),
                    target.name(),
                    size as f64 / ns
                );
                first = false;
            }
            println!("{row}");
        }
    }
    json.push_str("\n ]\n}\n");
    let save = std::env::args().any(|arg| arg == "--save");
    let dir = format!(
        "{}/{}",
        env!("CARGO_MANIFEST_DIR"),
        if save {
            "benchmark/results"
        } else {
            "target/bench-results"
        }
    );
    let path = format!("{dir}/kernel{}.json", if quick { "-quick" } else { "" });
    match std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, json)) {
        Ok(()) => println!("\nwrote {path}"),
        Err(error) => eprintln!("could not write {path}: {error}"),
    }
}
