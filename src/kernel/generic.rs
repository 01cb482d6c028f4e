//! The one algorithm (see the module header in `mod.rs`), written over a small vector abstraction.
//!
//! Every function here is `#[inline(always)]` so that it compiles inside the `#[target_feature]` wrapper
//! of each level, with that level's instructions.

/// A vector of `BYTES` bytes: the operations the algorithm needs and nothing else.
pub(super) trait Vector: Copy {
    /// Width in bytes; a power of two.
    const BYTES: usize;
    /// The next narrower vector, for inputs shorter than `BYTES` (`u64` is its own).
    type Half: Vector;

    /// The 4-byte word `word` (in memory order) repeated across the vector.
    ///
    /// # Safety
    /// The CPU must support the vector's instruction set.
    unsafe fn splat(word: u32) -> Self;

    /// # Safety
    /// `src` must be valid for reads of `BYTES` bytes; the CPU must support the instruction set.
    unsafe fn load_unaligned(src: *const u8) -> Self;

    /// # Safety
    /// `dst` must be valid for writes of `BYTES` bytes; the CPU must support the instruction set.
    unsafe fn store_unaligned(self, dst: *mut u8);

    /// `store_unaligned`, unless the level has a store that takes the alignment.
    ///
    /// # Safety
    /// `dst` must be valid for writes of `BYTES` bytes and aligned to `BYTES`; the CPU must support the
    /// instruction set.
    #[inline(always)]
    unsafe fn store_aligned(self, dst: *mut u8) {
        debug_assert_eq!(dst as usize % Self::BYTES, 0);
        // SAFETY: the caller's contract, which `store_unaligned`'s is part of.
        unsafe { self.store_unaligned(dst) }
    }

    /// # Safety
    /// The CPU must support the vector's instruction set.
    unsafe fn xor(self, other: Self) -> Self;

    /// Whether `store_streaming` bypasses the caches at this level (x86-64's non-temporal stores).
    const STREAMS: bool = false;

    /// `store_aligned`, past the caches where the level can (for outputs of `stream_from` bytes and more).
    ///
    /// # Safety
    /// As for `store_aligned`; and the function that streams must call `stream_fence` before it returns.
    #[inline(always)]
    unsafe fn store_streaming(self, dst: *mut u8) {
        // SAFETY: the caller's contract is `store_aligned`'s.
        unsafe { self.store_aligned(dst) }
    }

    /// Orders the streaming stores before every store that follows, as normal stores are ordered.
    ///
    /// # Safety
    /// The CPU must support the vector's instruction set.
    #[inline(always)]
    unsafe fn stream_fence() {}
}

/// The portable vector: one 64-bit word.
impl Vector for u64 {
    const BYTES: usize = 8;
    type Half = u64;

    #[inline(always)]
    unsafe fn splat(word: u32) -> u64 {
        // Both halves hold the same word, so the byte order in memory is `word`'s on either endianness.
        u64::from(word) | (u64::from(word) << 32)
    }

    #[inline(always)]
    unsafe fn load_unaligned(src: *const u8) -> u64 {
        // SAFETY: the caller guarantees 8 readable bytes at `src`.
        unsafe { src.cast::<u64>().read_unaligned() }
    }

    #[inline(always)]
    unsafe fn store_unaligned(self, dst: *mut u8) {
        // SAFETY: the caller guarantees 8 writable bytes at `dst`.
        unsafe { dst.cast::<u64>().write_unaligned(self) }
    }

    #[inline(always)]
    unsafe fn store_aligned(self, dst: *mut u8) {
        debug_assert_eq!(dst as usize % 8, 0);
        // SAFETY: the caller guarantees 8 writable bytes at `dst`, aligned to 8.
        unsafe { dst.cast::<u64>().write(self) }
    }

    #[inline(always)]
    unsafe fn xor(self, other: u64) -> u64 {
        self ^ other
    }
}

/// The key word for byte `n` of the payload: `key[n & 3], key[(n + 1) & 3], …` in memory order. A rotation,
/// not four byte reads: indexing `[u8; 4]` by a runtime value puts the key in memory (wasm32's shadow stack).
#[inline(always)]
pub(super) fn key_word(key: [u8; 4], n: usize) -> u32 {
    let word = u32::from_ne_bytes(key);
    // Moving the bytes one place towards the start of memory: towards the low end on little-endian.
    let bits = 8 * (n & 3) as u32;
    if cfg!(target_endian = "little") {
        word.rotate_right(bits)
    } else {
        word.rotate_left(bits)
    }
}

/// True when `dst` starts inside `src`'s range, past its start: then the forward loop reads bytes that
/// it wrote itself a few steps before, and only the byte loop reproduces that.
#[inline(always)]
fn overlaps_forward(src: *const u8, dst: *mut u8, len: usize) -> bool {
    let gap = (dst as usize).wrapping_sub(src as usize);
    gap != 0 && gap < len
}

/// The reference: the forward byte loop, one byte at a time, reading each byte just before writing.
///
/// # Safety
/// As for [`super::Kernel::mask_raw`].
#[inline(never)]
pub unsafe fn xor_bytes(src: *const u8, dst: *mut u8, len: usize, key: [u8; 4]) {
    for i in 0..len {
        // SAFETY: `i < len`, and the caller guarantees `len` readable bytes at `src` and writable at `dst`.
        unsafe { *dst.add(i) = *src.add(i) ^ key[i & 3] };
    }
}

/// Below this many bytes an in-place call takes `xor_pieces`: `xor_key_long`'s overlapping edges would make
/// a load span two stores of the previous call on the same buffer (a receive loop's), which stalls
/// store-to-load forwarding, a cost small against longer calls. x86-64 only, where it was measured.
pub(super) const IN_PLACE_PIECES_BELOW: usize = if cfg!(target_arch = "x86_64") { 256 } else { 0 };

/// The kernel at vector `V`: the entry point of every level. A distinct output of `stream_from` bytes
/// or more (and at least one vector of `V`) that shares no byte with its source is written with
/// streaming stores where `V` has them.
///
/// # Safety
/// As for [`super::Kernel::mask_raw`]; and the CPU must support `V`'s instruction set.
#[inline(always)]
pub(super) unsafe fn xor_key<V: Vector>(
    src: *const u8,
    dst: *mut u8,
    len: usize,
    key: [u8; 4],
    stream_from: usize,
) {
    if overlaps_forward(src, dst, len) {
        // SAFETY: the caller's contract is `xor_bytes`'s.
        unsafe { xor_bytes(src, dst, len, key) }
    } else if len >= V::BYTES {
        // SAFETY: `len >= V::BYTES`; no forward overlap; the rest is the caller's contract.
        unsafe { xor_key_long::<V>(src, dst, len, key, stream_from) }
    } else if len >= <V::Half as Vector>::BYTES {
        // Shorter than one vector of `V`: too short to stream, and a constant lets the compiler drop the
        // narrower vectors' streaming loops.
        // SAFETY: as above, for the half-width vector, whose instruction set `V`'s includes.
        unsafe { xor_key_long::<V::Half>(src, dst, len, key, usize::MAX) }
    } else if len >= <<V::Half as Vector>::Half as Vector>::BYTES {
        // SAFETY: as above, for the quarter-width vector.
        unsafe { xor_key_long::<<V::Half as Vector>::Half>(src, dst, len, key, usize::MAX) }
    } else if len >= u64::BYTES {
        // SAFETY: as above, for the portable word.
        unsafe { xor_key_long::<u64>(src, dst, len, key, usize::MAX) }
    } else {
        // SAFETY: the caller's contract is `xor_bytes`'s.
        unsafe { xor_bytes(src, dst, len, key) }
    }
}

/// A level's two entry points: `xor_key` into another buffer as `$distinct` and `xor_in_place` as
/// `$in_place`, over `$vector`, each compiled with the level's instructions (`$feature`, if any); or,
/// after `in_place`, the second alone.
macro_rules! level {
    (in_place $in_place:ident, $vector:ty $(, $feature:literal)?) => {
        /// The level in place.
        ///
        /// # Safety
        /// As for [`super::generic::xor_in_place`]; and the CPU must support the features enabled here.
        $(#[target_feature(enable = $feature)])?
        pub(super) unsafe fn $in_place(buf: *mut u8, len: usize, key: [u8; 4]) {
            // SAFETY: the caller's contract, under which the CPU runs the features enabled here and
            // with them `$vector`'s instructions.
            unsafe { super::generic::xor_in_place::<$vector>(buf, len, key) }
        }
    };
    ($distinct:ident, $in_place:ident, $vector:ty $(, $feature:literal)?) => {
        /// The level into another buffer.
        ///
        /// # Safety
        /// As for [`super::Kernel::mask_raw`]; and the CPU must support the features enabled here.
        $(#[target_feature(enable = $feature)])?
        pub(super) unsafe fn $distinct(
            src: *const u8,
            dst: *mut u8,
            len: usize,
            key: [u8; 4],
            stream_from: usize,
        ) {
            // SAFETY: the caller's contract, under which the CPU runs the features enabled here and
            // with them `$vector`'s instructions.
            unsafe { super::generic::xor_key::<$vector>(src, dst, len, key, stream_from) }
        }

        level!(in_place $in_place, $vector $(, $feature)?);
    };
}
pub(super) use level;

// The portable level (`scalar`): the algorithm over 64-bit words, which need no particular CPU.
level!(xor_key_scalar, xor_in_place_scalar, u64);

/// The kernel at vector `V` in place: `buf[i] ^= key[i & 3]` for `i < len`.
///
/// # Safety
/// `buf` must be valid for reads and writes of `len` bytes, with no reference to them live during the
/// call; the CPU must support `V`'s instruction set.
#[inline(always)]
pub(super) unsafe fn xor_in_place<V: Vector>(buf: *mut u8, len: usize, key: [u8; 4]) {
    // Always false off x86-64, where the constant is 0.
    #[allow(clippy::absurd_extreme_comparisons)]
    if len < IN_PLACE_PIECES_BELOW {
        // SAFETY: the caller's contract is `xor_pieces`'s.
        unsafe { xor_pieces::<V>(buf, len, key) }
    } else {
        // SAFETY: in place is within `xor_key`'s contract; an output that is its source never streams.
        unsafe { xor_key::<V>(buf, buf, len, key, usize::MAX) }
    }
}

/// In place, `buf[i] ^= key[i & 3]` as pieces that share no byte: whole vectors of `V` from the start,
/// then at most one each of the narrower vectors and of 4, 2 and 1 bytes. Each piece is loaded and stored
/// at the same address and width, so a later call over the same bytes reads each piece back from one store.
///
/// # Safety
/// `buf` must be valid for reads and writes of `len` bytes; the CPU must support `V`'s instruction set.
#[inline(always)]
unsafe fn xor_pieces<V: Vector>(buf: *mut u8, len: usize, key: [u8; 4]) {
    let mut i = 0;
    // SAFETY: every piece lies in `i..len` (each step tests that it fits), valid by the caller's contract;
    // the CPU supports `V`, and with it the narrower vectors.
    unsafe {
        while i + V::BYTES <= len {
            piece::<V>(buf, i, key);
            i += V::BYTES;
        }
        if i + <V::Half as Vector>::BYTES <= len {
            piece::<V::Half>(buf, i, key);
            i += <V::Half as Vector>::BYTES;
        }
        if i + <<V::Half as Vector>::Half as Vector>::BYTES <= len {
            piece::<<V::Half as Vector>::Half>(buf, i, key);
            i += <<V::Half as Vector>::Half as Vector>::BYTES;
        }
        if i + u64::BYTES <= len {
            piece::<u64>(buf, i, key);
            i += u64::BYTES;
        }
        // Every piece so far is a multiple of 8 bytes, so the key is not rotated at `i`.
        debug_assert_eq!(i % 8, 0);
        if i + 4 <= len {
            let at = buf.add(i).cast::<u32>();
            at.write_unaligned(at.read_unaligned() ^ u32::from_ne_bytes(key));
            i += 4;
        }
        if i + 2 <= len {
            let at = buf.add(i).cast::<u16>();
            let k = key_word(key, i).to_ne_bytes();
            at.write_unaligned(at.read_unaligned() ^ u16::from_ne_bytes([k[0], k[1]]));
            i += 2;
        }
        if i < len {
            *buf.add(i) ^= key_word(key, i).to_ne_bytes()[0];
        }
    }
}

/// One piece of `xor_pieces`: the vector at `buf + i`, in place.
///
/// # Safety
/// `buf + i .. buf + i + V::BYTES` must be valid for reads and writes; the CPU must support `V`.
#[inline(always)]
unsafe fn piece<V: Vector>(buf: *mut u8, i: usize, key: [u8; 4]) {
    // SAFETY: the caller's contract.
    unsafe {
        let at = buf.add(i);
        V::load_unaligned(at).xor(V::splat(key_word(key, i))).store_unaligned(at);
    }
}

/// The algorithm proper, for `len >= V::BYTES` without forward overlap.
///
/// # Safety
/// As for [`super::Kernel::mask_raw`]; and `len >= V::BYTES`, `dst` does not start inside
/// `src + 1 .. src + len`, and the CPU supports `V`'s instruction set.
#[inline(always)]
unsafe fn xor_key_long<V: Vector>(
    src: *const u8,
    dst: *mut u8,
    len: usize,
    key: [u8; 4],
    stream_from: usize,
) {
    let width = V::BYTES;
    debug_assert!(len >= width);
    debug_assert!(!overlaps_forward(src, dst, len));
    let tail_at = len - width;
    // Bytes until `dst + start` is aligned to the vector width: less than one vector.
    let start = width.wrapping_sub(dst as usize) & (width - 1);
    let mut i = start;
    // Order: the edges are loaded before any store, and every store lands on bytes whose source was
    // loaded already (dst <= src, or the ranges are apart), so every byte is computed from its original
    // value; head and tail are stored last and rewrite the bytes they share with the loops with equal
    // values, which is also right in place.
    //
    // Bounds: every access lies in `0..len` (the loops test `i + width <= len`, head and tail are
    // `0..width` and `tail_at..len`), which the caller guarantees readable at `src` and writable at `dst`;
    // `dst + i` is aligned to `width` in the loops since `start` aligned it and `i` grows by multiples of
    // `width`.
    // SAFETY: by the bounds and alignment above; the CPU supports `V` by contract.
    unsafe {
        let head = V::load_unaligned(src).xor(V::splat(key_word(key, 0)));
        let tail = V::load_unaligned(src.add(tail_at)).xor(V::splat(key_word(key, tail_at)));
        // `i` only grows by multiples of 4, so one key vector serves the whole loop.
        let body_key = V::splat(key_word(key, start));
        if V::STREAMS && len >= stream_from && apart(src, dst, len) {
            i = xor_aligned_body::<V, true>(src, dst, i, len, body_key);
            V::stream_fence();
        } else {
            i = xor_aligned_body::<V, false>(src, dst, i, len, body_key);
        }
        // Head, loops and tail cover 0..len: `start < width`, and the loops stop with `i > len - width`.
        debug_assert!(start <= width && i + width > len);
        head.store_unaligned(dst);
        tail.store_unaligned(dst.add(tail_at));
    }
}

/// Whether the two ranges of `len` bytes share no byte.
#[inline(always)]
fn apart(src: *const u8, dst: *mut u8, len: usize) -> bool {
    let (src, dst) = (src as usize, dst as usize);
    dst >= src.wrapping_add(len) || src >= dst.wrapping_add(len)
}

/// The aligned middle of `xor_key_long`: from `i` while a whole vector fits, 4 at a time then 1, every
/// store aligned (streaming if `STREAMING`); returns where it stopped (`i + V::BYTES > len`).
///
/// # Safety
/// As for `xor_key_long`, from whose state it runs: `dst + i` aligned to `V::BYTES`, `i` a multiple of 4
/// past the byte `body_key` was rotated for; with `STREAMING`, the caller fences before it returns.
#[inline(always)]
unsafe fn xor_aligned_body<V: Vector, const STREAMING: bool>(
    src: *const u8,
    dst: *mut u8,
    mut i: usize,
    len: usize,
    body_key: V,
) -> usize {
    let width = V::BYTES;
    // SAFETY: every access is in `i..len`, readable at `src` and writable at `dst` (the caller's
    // contract), and `dst + i` stays aligned to `width`, since `i` grows by multiples of it.
    unsafe {
        while i + 4 * width <= len {
            let a = V::load_unaligned(src.add(i)).xor(body_key);
            let b = V::load_unaligned(src.add(i + width)).xor(body_key);
            let c = V::load_unaligned(src.add(i + 2 * width)).xor(body_key);
            let d = V::load_unaligned(src.add(i + 3 * width)).xor(body_key);
            store::<V, STREAMING>(a, dst.add(i));
            store::<V, STREAMING>(b, dst.add(i + width));
            store::<V, STREAMING>(c, dst.add(i + 2 * width));
            store::<V, STREAMING>(d, dst.add(i + 3 * width));
            i += 4 * width;
        }
        while i + width <= len {
            store::<V, STREAMING>(V::load_unaligned(src.add(i)).xor(body_key), dst.add(i));
            i += width;
        }
    }
    i
}

/// An aligned store, streaming or not: a function, not a closure, so that it inlines as everything here.
///
/// # Safety
/// As for `store_aligned` (and `store_streaming` with `STREAMING`).
#[inline(always)]
unsafe fn store<V: Vector, const STREAMING: bool>(vector: V, at: *mut u8) {
    // SAFETY: the caller's contract.
    unsafe {
        if STREAMING {
            vector.store_streaming(at)
        } else {
            vector.store_aligned(at)
        }
    }
}
