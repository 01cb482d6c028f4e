'use strict';

// `npm run bench`: every masking implementation side by side in one process, each timed at its own call
// site, in interleaved rounds, so that ratios between them hold on a noisy machine. Checks every
// implementation's output first; times after. Runs under Node and Bun.
//
//   node benchmark/bench.js [--quick] [--save] [--sizes=64,65536] [--rounds=41] [--batch-ms=0.3]
//                           [--views=direct,ws] [--cases=mask,unmask] [--levels]
//
// --quick (or BENCH_QUICK=1): tiny budgets, for CI: proves correctness and that every path runs, never speed.
// --save: write results to benchmark/results/bench-<runtime>.{json,svg}; without it nothing is written.
// --out=DIR: write the JSON (no chart) to DIR instead (benchmark/repeat.js runs bench.js that way).

const assert = require('assert');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const { loadImplementations, ROOT } = require('./lib/implementations');
const { machineFacts, addonFacts, sourceFacts, versionOf } = require('./lib/machine');
const { ROTATION, makeTimer, throughWs, summary, ratioSummary } = require('./lib/timing');

const argv = process.argv.slice(2);
const option = (name) => (argv.find((arg) => arg.startsWith(`--${name}=`)) || '').slice(name.length + 3);
const listOption = (name) => option(name).split(',').filter(Boolean);
const QUICK = argv.includes('--quick') || /^(1|true|yes)$/i.test(process.env.BENCH_QUICK || '');
const OUT = option('out');
const SAVE = argv.includes('--save') || OUT !== '';

const KiB = 1024;
const MiB = 1024 * KiB;
const ONLY_SIZES = listOption('sizes').map(Number);
const keep = (sizes) => (ONLY_SIZES.length ? sizes.filter((size) => ONLY_SIZES.includes(size)) : sizes);
const SIZES = keep([16, 32, 48, 64, 96, 128, 256, 512, KiB, 4 * KiB, 16 * KiB, 64 * KiB, MiB, 16 * MiB]);
// A source at byteOffset 1 of its ArrayBuffer: no vector load of it is aligned.
const MISALIGNED_SIZES = keep([64, 256, KiB, 64 * KiB, MiB]);
// Odd lengths around every vector width and loop edge, checked but not timed.
const CHECK_ONLY_LENGTHS = [0, 1, 2, 3, 5, 7, 15, 17, 23, 24, 31, 33, 47, 49, 63, 65, 79, 80, 81, 95, 97, 127, 129, 255, 257, 1023, 1025, 4097, 65537];
const ROUNDS = Number(option('rounds')) || (QUICK ? 2 : 41);
const BATCH_NS = (Number(option('batch-ms')) || (QUICK ? 0.02 : 0.3)) * 1e6;
const VIEWS = listOption('views').length ? listOption('views') : ['direct', 'ws'];
const ONLY_CASES = listOption('cases');
// ws writes a masked payload after its frame header: 6 bytes is the smallest masked header.
const OUTPUT_OFFSET = 6;
const KEY = Buffer.from([0x6d, 0xb6, 0xb2, 0x80]);
// Bytes around each checked view that must come back untouched; 8 keeps the view's alignment.
const GUARD = 8;
// The most memory one case's rotating inputs may take (big sizes rotate over fewer buffers).
const ROTATION_BYTES = 64 * MiB;
// ws 8.23 lib/buffer-util.js: its byte loop below these sizes, the library from there.
const WS_THRESHOLDS = { bufferutil: { maskFrom: 48, unmaskFrom: 32 }, node: { maskFrom: 24, unmaskFrom: 24 } };

const RUNTIME = typeof Bun !== 'undefined' ? `bun ${Bun.version}` : `node ${process.version}`;
const RUNTIME_TAG = typeof Bun !== 'undefined' ? 'bun' : `node${process.versions.node.split('.')[0]}`;

/** The timed cases: what each one calls, and the memory-only reference it is compared with. */
const CASES = [
  { id: 'mask', kind: 'mask', inPlace: false, sourceOffset: 0, reference: 'copy', title: `mask into a distinct output at offset ${OUTPUT_OFFSET}` },
  { id: 'mask-in-place', kind: 'mask', inPlace: true, sourceOffset: 0, reference: 'fill', title: 'mask in place (source === output, offset 0)' },
  { id: 'unmask', kind: 'unmask', inPlace: true, sourceOffset: 0, reference: 'fill', title: 'unmask in place' },
  { id: 'mask+misaligned', kind: 'mask', inPlace: false, sourceOffset: 1, reference: 'copy', title: `mask into offset ${OUTPUT_OFFSET}, source at byteOffset 1` },
  { id: 'unmask+misaligned', kind: 'unmask', inPlace: true, sourceOffset: 1, reference: 'fill', title: 'unmask in place, buffer at byteOffset 1' },
].filter((c) => ONLY_CASES.length === 0 || ONLY_CASES.includes(c.id));
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
 * Runs every implementation (`{ id, mask, unmask }`) on every checked length, aligned and at byteOffset
 * 1, against the reference loop, comparing whole backing stores so a write outside the view fails too.
 */
function checkAll(implementations) {
  const lengths = [...new Set([...CHECK_ONLY_LENGTHS, ...SIZES, ...MISALIGNED_SIZES])].sort((a, b) => a - b);
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

/**
 * The rows timed for one view and case: `{ id, timer }`. `direct`: each implementation called as is, plus
 * the memory reference; `ws`: each library behind ws's buffer-util wrapper, plus ws's loop alone.
 */
function rowsFor(view, benchCase, implementations, wsLoop) {
  const rows = [];
  for (const impl of implementations) {
    let lib = impl;
    if (view === 'ws' && impl.id !== 'ws-js') {
      lib = throughWs(impl.id, impl, wsLoop, impl.id === 'node' ? WS_THRESHOLDS.node : WS_THRESHOLDS.bufferutil);
    }
    const fn = benchCase.kind === 'mask' ? lib.mask : lib.unmask;
    rows.push({ id: impl.id, timer: makeTimer(benchCase.kind, `${view}_${benchCase.id}_${impl.id}`, fn) });
  }
  if (view === 'direct') {
    rows.push({ id: 'reference', timer: makeTimer(benchCase.reference, `${view}_${benchCase.id}_reference`, null) });
  }
  return rows;
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
 * Runs every row's loop over mixed sizes (up to 64 KiB, shuffled, a few passes) before anything is timed,
 * so that what the JIT makes of each implementation is what a caller with mixed traffic gets, not code
 * specialised on one size.
 */
function warmUp(table) {
  const sizes = [16, 32, 48, 64, 96, 128, 256, 512, KiB, 4 * KiB, 16 * KiB, 64 * KiB];
  const passes = QUICK ? 1 : 3;
  for (const { benchCase, rows } of table) {
    const inputs = new Map(sizes.map((size) => [size, inputsFor(benchCase, size)]));
    for (let pass = 0; pass < passes; pass++) {
      for (const size of shuffle([...sizes])) {
        const calls = QUICK ? 2 : Math.max(4, Math.floor(400_000 / (size + 64)));
        for (const row of shuffle([...rows])) row.timer(inputs.get(size), calls);
      }
    }
  }
}

/** How many calls make one timed batch of about BATCH_NS for `row`. */
function calibrate(row, inputs) {
  let calls = 1;
  for (;;) {
    const ns = row.timer(inputs, calls);
    if (ns >= BATCH_NS / 4 || calls >= 1 << 24) return Math.max(1, Math.round((calls * BATCH_NS) / Math.max(ns, 1)));
    calls *= 4;
  }
}

/** Times one case and size: ROUNDS rounds, each timing every row once, in an order rotated per round. */
function measureCell(rows, inputs) {
  const calls = rows.map((row) => calibrate(row, inputs));
  const perRound = rows.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < rows.length; k++) {
      const index = (k + round) % rows.length;
      perRound[index].push(rows[index].timer(inputs, calls[index]) / calls[index]);
    }
  }
  return rows.map((row, index) => ({ id: row.id, calls: calls[index], roundsNs: perRound[index] }));
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

const formatRatio = ({ median, p25, p75 }) => `${median.toFixed(2)} (${p25.toFixed(2)}–${p75.toFixed(2)})`;

/** Markdown tables for one view and case: times, speed ÷ bufferutil, and bufferutil-simd ÷ the others. */
function tablesFor(view, benchCase, cells, ids) {
  const lines = [`#### ${view === 'ws' ? 'through ws: ' : ''}${benchCase.id} — ${benchCase.title}`, ''];
  const label = (id) => (id === 'reference' ? benchCase.reference === 'copy' ? 'memcpy' : 'memset' : id);
  lines.push('Time per call, median (p25–p75) · min:', '');
  lines.push(`| size | ${ids.map(label).join(' | ')} |`, `|---:|${ids.map(() => '---:').join('|')}|`);
  for (const { size, rows } of cells) {
    const cellOf = (id) => rows.find((r) => r.id === id);
    lines.push(`| ${formatSize(size)} | ${ids.map((id) => {
      const { median, p25, p75, min } = cellOf(id).stats;
      return `${formatTime(median)} (${formatTime(p25)}–${formatTime(p75)}) · ${formatTime(min)}`;
    }).join(' | ')} |`);
  }
  const others = ids.filter((id) => id !== 'bufferutil');
  lines.push('', 'Speed ÷ bufferutil\'s (its time ÷ this one\'s), median of per-round ratios (p25–p75); above 1 is faster:', '');
  lines.push(`| size | ${others.map(label).join(' | ')} |`, `|---:|${others.map(() => '---:').join('|')}|`);
  for (const { size, rows } of cells) {
    lines.push(`| ${formatSize(size)} | ${others.map((id) => formatRatio(rows.find((r) => r.id === id).vsBufferutil)).join(' | ')} |`);
  }
  const against = ['ws-js', 'node', 'reference'].filter((id) => ids.includes(id));
  lines.push('', 'bufferutil-simd (index.js) ÷ others: their time ÷ its time, per round, median (p25–p75):', '');
  lines.push(`| size | ${against.map((id) => `simd ÷ ${label(id)}`).join(' | ')} |`, `|---:|${against.map(() => '---:').join('|')}|`);
  for (const { size, simdOver } of cells) {
    lines.push(`| ${formatSize(size)} | ${against.map((id) => formatRatio(simdOver[id])).join(' | ')} |`);
  }
  lines.push('');
  return lines.join('\n');
}

async function main() {
  const started = Date.now();
  const { implementations, info } = loadImplementations({ levels: argv.includes('--levels') });
  const wsLoop = implementations.find((impl) => impl.id === 'ws-js');
  // Hashed now, as loaded: a rebuild during the run must not relabel what was measured.
  const addon = addonFacts(ROOT, info.addonPath);
  const source = sourceFacts(ROOT);
  console.log(`${RUNTIME}; bufferutil-simd backend ${info.backend}; native levels here: ${info.levels.join(', ')}`);
  console.log(`implementations: ${implementations.map((impl) => impl.id).join(', ')}`);
  if (!info.nodeCoreMask) console.log('no http.websocketMask here (Node 26+ has it): no "node" column');

  const checked = [
    ...implementations,
    ...implementations
      .filter((impl) => impl.id !== 'ws-js')
      .map((impl) => ({ ...throughWs(impl.id, impl, wsLoop, WS_THRESHOLDS[impl.id === 'node' ? 'node' : 'bufferutil']), id: `ws+${impl.id}` })),
  ];
  const { failures, checks } = checkAll(checked);
  if (failures.length > 0) {
    console.error(`${failures.length} of ${checks} correctness checks FAILED:\n  ${failures.slice(0, 50).join('\n  ')}`);
    process.exit(1);
  }
  console.log(`correctness: ${checks} checks against the reference loop passed, direct and through ws (${((Date.now() - started) / 1e3).toFixed(1)} s)`);

  const table = [];
  for (const view of VIEWS) {
    for (const benchCase of CASES) table.push({ view, benchCase, rows: rowsFor(view, benchCase, implementations, wsLoop) });
  }
  warmUp(table);
  console.log(`${QUICK ? 'quick mode (timings not meaningful): ' : ''}${ROUNDS} rounds per cell, batches of ~${(BATCH_NS / 1e6).toFixed(2)} ms; warm-up done in ${((Date.now() - started) / 1e3).toFixed(1)} s\n`);

  const results = [];
  for (const { view, benchCase, rows } of table) {
    const cells = [];
    for (const size of benchCase.sourceOffset ? MISALIGNED_SIZES : SIZES) {
      const measured = measureCell(rows, inputsFor(benchCase, size));
      const byId = new Map(measured.map((m) => [m.id, m]));
      const base = byId.get('bufferutil').roundsNs;
      const simd = byId.get('simd').roundsNs;
      const cellRows = measured.map((m) => ({ ...m, stats: summary(m.roundsNs), vsBufferutil: ratioSummary(base, m.roundsNs) }));
      const simdOver = {};
      for (const m of measured) simdOver[m.id] = ratioSummary(m.roundsNs, simd);
      cells.push({ size, rows: cellRows, simdOver });
      for (const row of cellRows) {
        results.push({
          view,
          case: benchCase.id,
          op: benchCase.kind,
          inPlace: benchCase.inPlace,
          sourceOffset: benchCase.sourceOffset,
          size,
          impl: row.id,
          calls: row.calls,
          minNs: row.stats.min,
          p25Ns: row.stats.p25,
          medianNs: row.stats.median,
          p75Ns: row.stats.p75,
          gbps: size / row.stats.median,
          vsBufferutil: row.vsBufferutil,
          simdOver: row.id === 'simd' ? undefined : simdOver[row.id],
          roundsNs: row.roundsNs.map((ns) => Number(ns.toPrecision(4))),
        });
      }
    }
    console.log(tablesFor(view, benchCase, cells, rows.map((row) => row.id)));
  }

  console.log(`done in ${((Date.now() - started) / 1e3).toFixed(0)} s`);
  if (!SAVE) return;
  const suffix = QUICK ? '-quick' : ONLY_SIZES.length || ONLY_CASES.length || listOption('views').length ? '-partial' : '';
  const base = path.join(OUT ? path.resolve(OUT) : path.join(__dirname, 'results'), `bench-${RUNTIME_TAG}${suffix}`);
  const report = {
    schema: 2,
    mode: QUICK ? 'quick' : 'full',
    date: new Date().toISOString(),
    durationSeconds: Math.round((Date.now() - started) / 1e3),
    runtime: RUNTIME,
    machine: machineFacts(),
    source,
    bufferutilSimd: { ...info, addonPath: undefined, addon },
    versions: { bufferutil: versionOf('bufferutil'), ws: versionOf('ws') },
    settings: {
      method: 'each implementation timed by a loop compiled for it alone; inputs rotate over 8 keys and up to 8 buffers; ' +
        'warm-up over mixed sizes; interleaved rounds (round r times every implementation once, order rotated by r); ' +
        'stats over per-round ns per call; ratios are medians of per-round ratios',
      rounds: ROUNDS,
      batchNs: BATCH_NS,
      rotation: ROTATION,
      outputOffset: OUTPUT_OFFSET,
      misalignedByteOffset: 1,
      wsThresholds: WS_THRESHOLDS,
      references: REFERENCE,
    },
    implementations: [
      ...implementations.map(({ id, label, group }) => ({ id, label, group })),
      { id: 'reference', label: 'reference: memcpy (set) / memset (fill)', group: 'reference' },
    ],
    views: VIEWS,
    cases: CASES.map(({ id, kind, inPlace, sourceOffset, title, reference }) => ({ id, op: kind, inPlace, sourceOffset, title, reference })),
    results,
  };
  fs.mkdirSync(path.dirname(base), { recursive: true });
  fs.writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 1)}\n`);
  console.log(`wrote ${path.relative(ROOT, base)}.json`);
  if (OUT) return;
  try {
    const { renderChart } = require('./chart');
    await renderChart(`${base}.json`, `${base}.svg`);
    console.log(`wrote ${path.relative(ROOT, base)}.svg`);
  } catch (error) {
    console.warn(`no chart (${error.message.split('\n')[0]}); node benchmark/chart.js ${path.relative(ROOT, base)}.json draws it`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
