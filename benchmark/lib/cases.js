'use strict';

// What both benchmark harnesses time and how they check it first: the cases (operation, in place or not,
// source alignment), their rotating inputs, the reference byte loop every implementation must agree with,
// and the size and time formats. bench.js (interleaved rounds) and mitata.js (mitata) share these, so their
// figures are of the same calls on the same inputs.

const assert = require('assert');
const crypto = require('crypto');

const { ROTATION } = require('./timing');

const KiB = 1024;
const MiB = 1024 * KiB;
// ws writes a masked payload after its frame header: 6 bytes is the smallest masked header.
const OUTPUT_OFFSET = 6;
// The key of the correctness checks (the timed calls rotate over keys of their own).
const KEY = Buffer.from([0x6d, 0xb6, 0xb2, 0x80]);
// Odd lengths around every vector width and loop edge, checked but not timed.
const CHECK_ONLY_LENGTHS = [0, 1, 2, 3, 5, 7, 15, 17, 23, 24, 31, 33, 47, 49, 63, 65, 79, 80, 81, 95, 97, 127, 129, 255, 257, 1023, 1025, 4097, 65537];
// Bytes around each checked view that must come back untouched; 8 keeps the view's alignment.
const GUARD = 8;
// The most memory one case's rotating inputs may take (big sizes rotate over fewer buffers).
const ROTATION_BYTES = 64 * MiB;

/** The timed cases: what each one calls, and the memory-only reference it is compared with. */
const CASES = [
  { id: 'mask', kind: 'mask', inPlace: false, sourceOffset: 0, reference: 'copy', title: `mask into a distinct output at offset ${OUTPUT_OFFSET}` },
  { id: 'mask-in-place', kind: 'mask', inPlace: true, sourceOffset: 0, reference: 'fill', title: 'mask in place (source === output, offset 0)' },
  { id: 'unmask', kind: 'unmask', inPlace: true, sourceOffset: 0, reference: 'fill', title: 'unmask in place' },
  { id: 'mask+misaligned', kind: 'mask', inPlace: false, sourceOffset: 1, reference: 'copy', title: `mask into offset ${OUTPUT_OFFSET}, source at byteOffset 1` },
  { id: 'unmask+misaligned', kind: 'unmask', inPlace: true, sourceOffset: 1, reference: 'fill', title: 'unmask in place, buffer at byteOffset 1' },
];
const REFERENCE = { copy: 'memcpy (TypedArray.prototype.set)', fill: 'memset (Buffer.prototype.fill)' };

/** A view of `size` random bytes starting `byteOffset` bytes into its own ArrayBuffer. */
function randomView(size, byteOffset) {
  const backing = Buffer.alloc(size + byteOffset);
  crypto.randomFillSync(backing);
  return backing.subarray(byteOffset);
}

/** The reference loop every implementation must agree with: RFC 6455 §5.3, byte by byte. */
function referenceMask(source, output, offset, length) {
  for (let i = 0; i < length; i++) output[offset + i] = source[i] ^ KEY[i & 3];
}

/** A copy in its own ArrayBuffer (Buffer.from may take a slice of the shared pool, at any 8-byte offset). */
function copyOf(buffer) {
  const copy = Buffer.alloc(buffer.length);
  copy.set(buffer);
  return copy;
}

function firstDifference(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : Math.min(a.length, b.length);
}

/**
 * Runs every implementation (`{ id, mask, unmask }`) on every length in `timedLengths` and
 * CHECK_ONLY_LENGTHS, aligned and at byteOffset 1, against the reference loop, comparing whole backing
 * stores so a write outside the view fails too. Returns `{ failures, checks }`.
 */
function checkAll(implementations, timedLengths) {
  const lengths = [...new Set([...CHECK_ONLY_LENGTHS, ...timedLengths])].sort((a, b) => a - b);
  const failures = [];
  let checks = 0;
  const expectEqual = (actual, expected, what) => {
    checks++;
    try {
      // A message of our own: assert's diff of two 16 MiB buffers would be enormous.
      assert.deepStrictEqual(actual, expected, what);
    } catch (error) {
      if (!(error instanceof assert.AssertionError)) throw error;
      failures.push(`${what}: first wrong byte at offset ${firstDifference(actual, expected)} of the checked buffer (guards included)`);
    }
  };
  for (const length of lengths) {
    for (const sourceOffset of [0, 1]) {
      const source = randomView(length, sourceOffset);
      const outputInit = Buffer.alloc(OUTPUT_OFFSET + length + 3, 0xee);
      const expectedOutput = copyOf(outputInit);
      referenceMask(source, expectedOutput, OUTPUT_OFFSET, length);
      // In-place views sit `sourceOffset` bytes past an 8-byte guard, with another guard after them.
      const backingInit = Buffer.alloc(GUARD + sourceOffset + length + GUARD, 0xee);
      const expectedInPlace = copyOf(backingInit);
      referenceMask(source, expectedInPlace, GUARD + sourceOffset, length);
      for (const impl of implementations) {
        const where = `${impl.id} length ${length} source byteOffset ${sourceOffset}`;
        const output = copyOf(outputInit);
        const sourceCopy = Buffer.from(source);
        impl.mask(source, KEY, output, OUTPUT_OFFSET, length);
        expectEqual(output, expectedOutput, `mask ${where}`);
        expectEqual(source, sourceCopy, `mask leaves its source alone, ${where}`);
        for (const [op, run] of [
          ['mask-in-place', (view) => impl.mask(view, KEY, view, 0, length)],
          ['unmask', (view) => impl.unmask(view, KEY)],
        ]) {
          const backing = copyOf(backingInit);
          const view = backing.subarray(GUARD + sourceOffset, GUARD + sourceOffset + length);
          view.set(source);
          run(view);
          expectEqual(backing, expectedInPlace, `${op} ${where}`);
        }
      }
    }
  }
  return { failures, checks };
}

/**
 * The rotating inputs of one case and size: ROTATION keys (4-byte slices of one pool, as ws draws them),
 * and up to ROTATION sources and outputs (fewer when they are big; the lists repeat them).
 */
function inputsFor(benchCase, size) {
  const distinct = Math.max(1, Math.min(ROTATION, Math.floor(ROTATION_BYTES / 2 / (size + OUTPUT_OFFSET))));
  const keyPool = crypto.randomBytes(ROTATION * 64);
  const keys = Array.from({ length: ROTATION }, (_, j) => keyPool.subarray(j * 64 + 4 * j, j * 64 + 4 * j + 4));
  const own = Array.from({ length: distinct }, () => randomView(size, benchCase.sourceOffset));
  const sources = Array.from({ length: ROTATION }, (_, j) => own[j % distinct]);
  let outputs = sources;
  if (!benchCase.inPlace) {
    const ownOutputs = Array.from({ length: distinct }, () => Buffer.alloc(OUTPUT_OFFSET + size));
    outputs = Array.from({ length: ROTATION }, (_, j) => ownOutputs[j % distinct]);
  }
  const offset = benchCase.inPlace ? 0 : OUTPUT_OFFSET;
  return { sources, keys, outputs, offset, length: size };
}

/** Shuffles in place (Fisher–Yates). */
function shuffle(list) {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

/**
 * Runs every row of every case over mixed sizes (up to 64 KiB, shuffled, a few passes) before anything is
 * timed, so that what the JIT makes of each implementation is what a caller with mixed traffic gets, not
 * code specialised on one size. `inputs(benchCase, size)` makes a size's inputs; `run(row, inputs, calls)`
 * calls a row `calls` times on them.
 */
function warmUp(table, { quick, inputs, run }) {
  const sizes = [16, 32, 48, 64, 96, 128, 256, 512, KiB, 4 * KiB, 16 * KiB, 64 * KiB];
  const passes = quick ? 1 : 3;
  for (const { benchCase, rows } of table) {
    const bySize = new Map(sizes.map((size) => [size, inputs(benchCase, size)]));
    for (let pass = 0; pass < passes; pass++) {
      for (const size of shuffle([...sizes])) {
        const calls = quick ? 2 : Math.max(4, Math.floor(400_000 / (size + 64)));
        for (const row of shuffle([...rows])) run(row, bySize.get(size), calls);
      }
    }
  }
}

function formatSize(bytes) {
  if (bytes >= MiB) return `${bytes / MiB} MiB`;
  if (bytes >= KiB) return `${bytes / KiB} KiB`;
  return `${bytes} B`;
}

function formatTime(ns) {
  // Compared after rounding to 3 digits, so 999.7 ns reads 1.00 µs, not 1.00e+3 ns.
  for (const [unit, scale] of [['ms', 1e6], ['µs', 1e3]]) {
    if (ns >= scale * 0.9995) return `${(ns / scale).toPrecision(3)} ${unit}`;
  }
  return `${ns.toPrecision(3)} ns`;
}

module.exports = {
  warmUp,
  KiB,
  MiB,
  OUTPUT_OFFSET,
  KEY,
  CASES,
  REFERENCE,
  randomView,
  checkAll,
  inputsFor,
  shuffle,
  formatSize,
  formatTime,
};
