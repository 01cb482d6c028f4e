//! `npm run bench:kernel`: the kernel alone, every level this CPU runs (benchmark/README.md: how it measures);
//! JSON to `target/bench-results/<cpu>.json`, with `-- --save` to `benchmark/results/kernel/<cpu>.json`.

use std::hint::black_box;
use std::time::{Instant, SystemTime};

use bufferutil_simd::kernel::{Caches, Kernel, Level};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;
/// Sizes where the call's fixed costs decide, timed on hot pairs only.
const SMALL: [usize; 7] = [16, 32, 48, 64, 128, 256, KIB];
/// Sizes from the L1 data cache to well past the last-level cache, in KiB.
const LARGE_KIB: [usize; 10] = [4, 16, 64, 256, 1024, 4096, 8192, 16384, 32768, 65536];
const KEY: [u8; 4] = [0x6d, 0xb6, 0xb2, 0x80];
/// Where a distinct mask writes in its output (as ws, after a 6-byte header); the cases' names say so.
const OUTPUT_OFFSET: usize = 6;

/// What a case runs over: `slots` pairs `stride` apart in turn; with `one_source`, the first slot's source.
struct Set {
    src: *mut u8,
    dst: *mut u8,
    stride: usize,
    slots: usize,
    size: usize,
    in_place: bool,
    one_source: bool,
}

/// One run: `calls` calls of `kernel`, rotating through the set's slots from `slot`; ns per call.
fn run(kernel: Kernel, set: &Set, calls: u64, slot: &mut usize) -> f64 {
    let started = Instant::now();
    for _ in 0..calls {
        let at = *slot * set.stride;
        *slot = (*slot + 1) % set.slots;
        // SAFETY: slot `at` holds `size` bytes of source and `size` past `OUTPUT_OFFSET` of output, both inside
        // the arena (main sized the slots); no reference to the arena is live.
        unsafe {
            let src = black_box(set.src.add(if set.one_source { 0 } else { at }));
            let dst = if set.in_place { src } else { black_box(set.dst.add(at + OUTPUT_OFFSET)) };
            kernel.mask_raw_unshortened(src, dst, black_box(set.size), black_box(KEY));
        }
    }
    started.elapsed().as_nanos() as f64 / calls as f64
}

/// Per column, the median ns per call: calls per run doubled until a run lasts about `run_time` ns (warming caches
/// and clocks), then rounds of every column in a shuffled order: no column always follows the same one.
fn measure(columns: &[(Kernel, String)], set: &Set, (run_time, rounds): (f64, usize)) -> Vec<f64> {
    let calls: Vec<u64> = (columns.iter())
        .map(|column| {
            let (mut calls, mut slot) = (1u64, 0);
            loop {
                let ns = run(column.0, set, calls, &mut slot) * calls as f64;
                if ns >= run_time / 2.0 || calls >= 1 << 30 {
                    return ((calls as f64 * run_time / ns.max(1.0)) as u64).max(1);
                }
                calls *= 2;
            }
        })
        .collect();
    let mut per_round = vec![Vec::with_capacity(rounds); columns.len()];
    let (mut slot, mut order) = (0, (0..columns.len()).collect::<Vec<_>>());
    let mut rng = StdRng::seed_from_u64(1);
    for _ in 0..rounds {
        order.shuffle(&mut rng);
        for &c in &order {
            per_round[c].push(run(columns[c].0, set, calls[c], &mut slot));
        }
    }
    (per_round.iter_mut())
        .map(|ns| *ns.select_nth_unstable_by(rounds / 2, f64::total_cmp).1)
        .collect()
}

/// The CPU's name, as the committed results give it: /proc/cpuinfo's model name (else CPUID's brand string,
/// 0x80000002–4, else "unknown CPU"), then its family and model where /proc/cpuinfo has them; and the results'
/// file name: the model name's lower-case words up to "CPU", "Processor", "@" or "NN-Core", without (R)/(TM),
/// then `-fF-mM` (else the last-level cache's size): what tells apart CPUs a VM names alike ("AMD EPYC").
fn cpu_names(llc: Option<usize>) -> (String, String) {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |key: &str| {
        let line =
            cpuinfo.lines().find_map(|line| line.split_once(':').filter(|(k, _)| k.trim() == key));
        line.map(|(_, value)| value.trim().to_string())
    };
    #[allow(unused_mut)] // filled on x86-64 only
    let mut name = field("model name").unwrap_or_default();
    #[cfg(target_arch = "x86_64")]
    if name.is_empty() && std::arch::x86_64::__cpuid(0x8000_0000).eax >= 0x8000_0004 {
        let leaves = (0x8000_0002..=0x8000_0004).map(std::arch::x86_64::__cpuid);
        let words = leaves.flat_map(|r| [r.eax, r.ebx, r.ecx, r.edx]);
        name.extend(words.flat_map(u32::to_le_bytes).map(char::from));
    }
    let name = name.trim_matches(|c: char| c == '\0' || c.is_whitespace());
    let name = if name.is_empty() { "unknown CPU" } else { name };
    let lower = name.to_ascii_lowercase().replace("(r)", "").replace("(tm)", "");
    let words: Vec<&str> = (lower.split_whitespace())
        .take_while(|w| !matches!(*w, "cpu" | "processor" | "@") && !w.ends_with("-core"))
        .flat_map(|w| w.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()))
        .collect();
    match (field("cpu family"), field("model")) {
        (Some(family), Some(model)) => (
            format!("{name} (family {family}, model {model})"),
            format!("{}-f{family}-m{model}", words.join("-")),
        ),
        _ => (name.to_string(), format!("{}-llc-{}mib", words.join("-"), llc.unwrap_or(0) / MIB)),
    }
}

fn main() {
    let quick =
        std::env::var("BENCH_QUICK").is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true"));
    let rounds = std::env::var("BENCH_ROUNDS").ok().and_then(|n| n.parse().ok()).filter(|&n| n > 0);
    let timing = if quick { (0.3e6, rounds.unwrap_or(3)) } else { (2e6, rounds.unwrap_or(15)) };
    let caches = Caches::this();
    let (name, file_name) = cpu_names(caches.llc);
    // Each level as `Kernel::of` makes it (streaming from the dispatch's size), then for large distinct
    // outputs each streaming level always (`+nt`) and never (`-nt`).
    let (mut levels, mut streamed) = (Vec::new(), Vec::new());
    for kernel in Level::ALL.into_iter().rev().filter_map(Kernel::of) {
        let level = kernel.level().name();
        levels.push((kernel, level.to_string()));
        if cfg!(target_arch = "x86_64") && kernel.level() != Level::Scalar {
            streamed.push((kernel.with_streaming(0), format!("{level}+nt")));
            streamed.push((kernel.with_streaming(usize::MAX), format!("{level}-nt")));
        }
    }
    let stream_from = Kernel::best(None).stream_from();
    println!("{name}: caches {caches:?}, streaming from {stream_from} B");

    // The arena: at least four 64 MiB pairs, and at least twice the last-level cache per side.
    let len = (2 * caches.llc.unwrap_or(32 * MIB)).clamp(256 * MIB, 1024 * MIB);
    let mut src: Vec<u8> =
        (0..len + 64 * KIB).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let mut dst = vec![1u8; len + 64 * KIB];
    let large = LARGE_KIB.map(|k| k * KIB);
    let mut cases = Vec::new();
    for (in_place, title) in [
        (false, "mask into another buffer at offset 6"),
        (true, "in place (mask with src == dst, as unmask)"),
    ] {
        // The pairs a set takes in turn (`None`: as many as the arena holds).
        for (sizes, set_name, pairs) in [
            // In turn, so that no call waits on the stores of the one before it, a chain no caller makes.
            (&SMALL[..], "8 pairs in the L1 cache, in turn", Some(8)),
            (&large[..], "one pair", Some(1)),
            (&large[..], "pairs beyond the cache", None),
            // One source in cache into outputs beyond it, as a sender masks the payload it was just handed.
            (&large[..], "outputs beyond the cache", None),
        ] {
            let (one_source, in_l1) = (set_name.starts_with("outputs"), set_name.starts_with('8'));
            if in_place && one_source {
                continue;
            }
            // Streaming is for large distinct outputs only (an `sfence` per call would decide the rest).
            let streaming = if in_place || in_l1 { &[][..] } else { &streamed[..] };
            let columns = [&levels[..], streaming].concat();
            let case = format!("{title}, {set_name}");
            let mut ns = vec![Vec::new(); columns.len()];
            for &size in sizes {
                // Pairs a page apart; hot pairs, and one source's outputs, one after another as allocated.
                let stride = if one_source || in_l1 {
                    (size + OUTPUT_OFFSET).next_multiple_of(64)
                } else {
                    size.next_multiple_of(4 * KIB) + 4 * KIB
                };
                let slots = pairs.unwrap_or((len / stride).max(1));
                let (src, dst) = (src.as_mut_ptr(), dst.as_mut_ptr());
                let set = Set { src, dst, stride, slots, size, in_place, one_source };
                // The medians to three significant digits.
                for (column, t) in ns.iter_mut().zip(measure(&columns, &set, timing)) {
                    column.push(format!("{t:.*}", usize::from(t < 100.0) + usize::from(t < 10.0)));
                }
            }
            println!("{case}: measured");
            let columns = (columns.iter().zip(&ns))
                .map(|(c, ns)| format!("\"{}\": [{}]", c.1, ns.join(", ")));
            cases.push(format!(
                "{{\"name\": \"{case}\", \"inPlace\": {in_place}, \"sizes\": {sizes:?},\n   \"ns\": {{{}}}}}",
                columns.collect::<Vec<_>>().join(", ")
            ));
        }
    }
    let epoch_day = SystemTime::UNIX_EPOCH.elapsed().map_or(0, |d| d.as_secs() / 86_400);
    let json = format!(
        "{{\"cpu\": \"{}\", \"epochDay\": {epoch_day},\n \"caches\": {{\"llc\": {}}}, \
         \"streamFrom\": {stream_from},\n \"cases\": [\n  {}\n]}}\n",
        name.replace(['"', '\\'], ""),
        caches.llc.map_or("null".to_string(), |llc| llc.to_string()),
        cases.join(",\n  ")
    );
    let save = std::env::args().any(|arg| arg == "--save") && !quick;
    let dir = if save { "benchmark/results/kernel" } else { "target/bench-results" };
    let dir = format!("{}/{dir}", env!("CARGO_MANIFEST_DIR"));
    let path = format!("{dir}/{}{}.json", file_name, if quick { "-quick" } else { "" });
    std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, &json)).expect(&path);
    println!("wrote {path}");
}
