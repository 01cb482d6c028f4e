//! Every kernel level (as the dispatch streams, streaming from any size, and from a fuzzer-chosen size) and
//! the dispatcher (`Kernel::best`), through both entries, against the oracle the kernel tests share on
//! fuzzer-chosen lengths, alignments, keys and layouts (distinct, in place, overlapping either way), with
//! the bytes around the destination checked to be untouched.
//!
//! Input: 4 key bytes, then a layout byte, two 16-bit offsets and a 16-bit length (little-endian), then
//! the arena's initial contents (repeated to fill it).

#![no_main]

use bufferutil_simd::kernel::{Kernel, Level};
use libfuzzer_sys::fuzz_target;

#[path = "../../src/kernel/oracle.rs"]
mod oracle;

/// Room for any source and destination range the header can describe, guards included.
const ARENA: usize = 3 * 4096;
const MAX_LEN: usize = 4096;

fuzz_target!(|data: &[u8]| {
    let Some((header, fill)) = data.split_first_chunk::<11>() else {
        return;
    };
    let key = [header[0], header[1], header[2], header[3]];
    let word = |at: usize| usize::from(u16::from_le_bytes([header[at], header[at + 1]]));
    let len = word(9) % (MAX_LEN + 1);
    let src = word(5) % (ARENA - len + 1);
    // The layout picks the destination relative to the source: anywhere (usually distinct), in place, or a
    // short distance ahead or behind (overlapping when it is below `len`).
    let near = word(7) % 80;
    let dst = match header[4] % 4 {
        0 => word(7) % (ARENA - len + 1),
        1 => src,
        2 => (src + near).min(ARENA - len),
        _ => src.saturating_sub(near),
    };

    // The fill repeated (zeros if there is none).
    let arena: Vec<u8> = fill.iter().copied().cycle().chain(core::iter::repeat(0)).take(ARENA).collect();
    let mut expected = arena.clone();
    oracle::oracle(&mut expected, src, dst, len, key);

    let run = |name: &str, kernel: &dyn Fn(*const u8, *mut u8)| {
        let mut actual = arena.clone();
        let base = actual.as_mut_ptr();
        // SAFETY: `src + len` and `dst + len` are within the arena (both offsets are capped by
        // `ARENA - len`), and no reference into it is live during the call.
        kernel(unsafe { base.add(src) }, unsafe { base.add(dst) });
        if actual != expected {
            let first = (0..ARENA).find(|&i| actual[i] != expected[i]).unwrap_or(0);
            panic!("{name}: src {src} dst {dst} len {len} key {key:?}: first wrong byte at {first}");
        }
    };
    let threshold = word(7) % (MAX_LEN + 1);
    let kernels = Level::ALL.into_iter().filter_map(Kernel::of).flat_map(|kernel| {
        [kernel, kernel.with_streaming(0), kernel.with_streaming(threshold)]
    });
    for kernel in kernels.chain([Kernel::best(None)]) {
        let name = format!("{:?} streaming from {}", kernel.level(), kernel.stream_from());
        for entry in [Kernel::mask_raw_unshortened, Kernel::mask_raw] {
            // SAFETY: `Kernel::of` and `Kernel::best` give only levels this CPU runs; `exact`'s two allocations
            // and `run`'s arena ranges are valid for `len` bytes each.
            let call = |s: *const u8, d: *mut u8| unsafe { entry(kernel, s, d, len, key) };
            exact(&name, &fill, len, key, &call);
            run(&name, &call);
        }
    }
});

/// The kernel on a source and a destination that are separate allocations of exactly `len` bytes, then in
/// place on one: AddressSanitizer (cargo fuzz's default) catches a read or write even one byte past them.
fn exact(name: &str, fill: &[u8], len: usize, key: [u8; 4], kernel: &dyn Fn(*const u8, *mut u8)) {
    let source: Vec<u8> = fill.iter().copied().cycle().take(len).collect();
    let source = if source.len() == len { source } else { vec![0x5a; len] };
    let mut expected = source.clone();
    oracle::oracle(&mut expected, 0, 0, len, key);

    let mut destination = vec![0u8; len];
    kernel(source.as_ptr(), destination.as_mut_ptr());
    assert!(destination == expected, "{name}: distinct exact-size buffers of {len} B, key {key:?}");
    let mut in_place = source.clone();
    let pointer = in_place.as_mut_ptr();
    kernel(pointer, pointer);
    assert!(in_place == expected, "{name}: in place on an exact-size buffer of {len} B, key {key:?}");
}
