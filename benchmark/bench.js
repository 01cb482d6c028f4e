'use strict';

// `npm run bench`: every masking implementation side by side, in one process and one mitata run, so
// that ratios between them hold on a noisy machine. Checks every implementation first; times after.
//
//   node benchmark/bench.js [--quick] [--sizes=64,65536]     BENCH_QUICK=1 is the same as --quick
//
// Quick mode times everything with a tiny budget (under a minute): for CI, it proves correctness and
// that every path runs, never speed. Writes benchmark/results/bench-node<major>[-quick].{json,svg}.

const assert = require('assert');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const { loadImplementations, ROOT } = require('./lib/implementations');
const { machineFacts, addonFacts, sourceFacts, versionOf } = require('./lib/machine');
const { renderChart } = require('./chart');

const QUICK = process.argv.includes('--quick') || /^(1|true|yes)$/i.test(process.env.BENCH_QUICK || '');

const KiB = 1024;
const MiB = 1024 * KiB;
// `--sizes=64,65536` keeps only those sizes (a partial run, for a closer look).
const ONLY_SIZES = (process.argv.find((arg) => arg.startsWith('--sizes=')) || '').slice(8).split(',').filter(Boolean).map(Number);
const keep = (sizes) => (ONLY_SIZES.length ? sizes.filter((size) => ONLY_SIZES.includes(size)) : sizes);
const SIZES = keep([16, 32, 48, 64, 128, 256, KiB, 4 * KiB, 16 * KiB, 64 * KiB, MiB, 16 * MiB]);
const MISALIGNED_SIZES = keep([64, KiB, 64 * KiB, MiB]);
// Odd lengths around every vector width and loop edge, checked but not timed.
const CHECK_ONLY_LENGTHS = [0, 1, 2, 3, 5, 7, 15, 17, 23, 24, 31, 33, 47, 49, 63, 65, 127, 129, 255, 257, 1023, 1025, 4097, 65537];
// ws writes a masked payload after its frame header: 6 bytes is the smallest masked header.
const OUTPUT_OFFSET = 6;
const KEY = Buffer.from([0x6d, 0xb6, 0xb2, 0x80]);
const FILL_BYTE = 0x5a;
// Bytes around each checked view that must come back untouched; 8 keeps the view's alignment.
const GUARD = 8;

// mitata's own loop (JIT-generated, batched), with a budget small enough for CI.
const QUICK_OPTIONS = { min_cpu_time: 2e6, min_samples: 4, batch_samples: 64, warmup_samples: 1 };

/** What each operation does, with the calls each implementation is timed on. */
const OPERATIONS = [
  {
    op: 'mask',
    title: `mask into a distinct output at offset ${OUTPUT_OFFSET}`,
    timed: (impl, { source, output, size }) =>
      impl.id === 'reference'
        ? () => output.set(source, OUTPUT_OFFSET)
        : () => impl.mask(source, KEY, output, OUTPUT_OFFSET, size),
  },
  {
    op: 'mask-in-place',
    title: 'mask in place (source === output, offset 0)',
    timed: (impl, { source, size }) =>
      impl.id === 'reference' ? () => source.fill(FILL_BYTE) : () => impl.mask(source, KEY, source, 0, size),
  },
  {
    op: 'unmask',
    title: 'unmask in place',
    timed: (impl, { source }) => (impl.id === 'reference' ? () => source.fill(FILL_BYTE) : () => impl.unmask(source, KEY)),
  },
];

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
 * Runs every implementation on every checked length, aligned and at byteOffset 1, against the reference
 * loop, comparing whole backing stores so a write outside the view fails too. Returns failure messages.
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
        if (impl.id === 'reference') continue;
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

/** Every timed case: operation × size, aligned, plus a misaligned source at a few sizes. */
function cases() {
  const list = [];
  for (const sourceOffset of [0, 1]) {
    for (const operation of OPERATIONS) {
      for (const size of sourceOffset === 0 ? SIZES : MISALIGNED_SIZES) {
        list.push({
          id: `${operation.op}${sourceOffset ? '+misaligned' : ''}`,
          title: `${operation.title}${sourceOffset ? ', source at byteOffset 1' : ''}`,
          operation,
          sourceOffset,
          size,
        });
      }
    }
  }
  return list;
}

/** Buffers for one case, shared by every implementation timed on it. */
function caseBuffers({ size, sourceOffset }) {
  return { size, source: randomView(size, sourceOffset), output: Buffer.alloc(OUTPUT_OFFSET + size) };
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

function formatRate(gbps) {
  return gbps >= 100 ? gbps.toFixed(0) : gbps.toPrecision(3);
}

/** Times every case × implementation; mitata prints its tables in full mode. Returns medians. */
async function measureAll(implementations, caseList) {
  const mitata = await import('mitata');
  const jobs = [];
  for (const benchCase of caseList) {
    const buffers = caseBuffers(benchCase);
    for (const impl of implementations) jobs.push({ benchCase, impl, fn: benchCase.operation.timed(impl, buffers) });
  }
  const results = [];
  const record = ({ benchCase, impl }, stats) =>
    results.push({
      case: benchCase.id,
      op: benchCase.operation.op,
      sourceOffset: benchCase.sourceOffset,
      size: benchCase.size,
      impl: impl.id,
      medianNs: stats.p50,
      p25Ns: stats.p25,
      p75Ns: stats.p75,
      gbps: benchCase.size / stats.p50,
      samples: stats.samples.length,
    });

  if (QUICK) {
    for (const job of jobs) record(job, await mitata.measure(job.fn, { ...QUICK_OPTIONS }));
    return results;
  }
  const registered = [];
  mitata.compact(() => {
    let index = 0;
    for (const benchCase of caseList) {
      mitata.group(`${benchCase.title}, ${formatSize(benchCase.size)}`, () => {
        for (; index < jobs.length && jobs[index].benchCase === benchCase; index++) {
          const job = jobs[index];
          mitata.bench(job.impl.label, job.fn);
          registered.push(job);
        }
      });
    }
  });
  const { benchmarks } = await mitata.run({ colors: Boolean(process.stdout.isTTY), throw: true });
  assert.strictEqual(benchmarks.length, registered.length, 'mitata ran a different set of benchmarks');
  benchmarks.forEach((trial, i) => {
    assert.strictEqual(trial.alias, registered[i].impl.label);
    record(registered[i], trial.runs[0].stats);
  });
  return results;
}

/** One markdown table per case: GB/s and time per call for each implementation, then the speed-ups. */
function summaryTables(implementations, results) {
  const byKey = new Map(results.map((r) => [`${r.case}|${r.size}|${r.impl}`, r]));
  const speedupOver = ['bufferutil', 'ws-js', 'node'].filter((id) => implementations.some((impl) => impl.id === id));
  const lines = [];
  for (const caseId of [...new Set(results.map((r) => r.case))]) {
    const sizes = [...new Set(results.filter((r) => r.case === caseId).map((r) => r.size))];
    lines.push(`#### ${caseId}`, '');
    lines.push(`| size | ${implementations.map((impl) => impl.id).join(' | ')} | ${speedupOver.map((id) => `simd ÷ ${id}`).join(' | ')} |`);
    lines.push(`|---:|${implementations.map(() => '---:').join('|')}|${speedupOver.map(() => '---:').join('|')}|`);
    for (const size of sizes) {
      const cell = (id) => byKey.get(`${caseId}|${size}|${id}`);
      const simd = cell('simd');
      const columns = implementations.map(({ id }) => {
        const r = cell(id);
        return `${formatRate(r.gbps)} · ${formatTime(r.medianNs)}`;
      });
      const ratios = speedupOver.map((id) => `${(cell(id).medianNs / simd.medianNs).toFixed(2)}×`);
      lines.push(`| ${formatSize(size)} | ${columns.join(' | ')} | ${ratios.join(' | ')} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

async function main() {
  const started = Date.now();
  const { implementations, info } = loadImplementations();
  // Hashed now, as loaded: a rebuild during the run must not relabel what was measured.
  const addon = addonFacts(ROOT, info.addonPath);
  const source = sourceFacts(ROOT);
  console.log(`bufferutil-simd backend ${info.backend}; native levels here: ${info.levels.join(', ')}`);
  console.log(`implementations: ${implementations.map((impl) => impl.id).join(', ')}`);
  if (!info.nodeCoreMask) console.log(`node ${process.version} has no http.websocketMask (Node 26+): no "node" column`);

  const { failures, checks } = checkAll(implementations);
  if (failures.length > 0) {
    console.error(`${failures.length} of ${checks} correctness checks FAILED:\n  ${failures.slice(0, 50).join('\n  ')}`);
    process.exit(1);
  }
  console.log(`correctness: ${checks} checks against the reference loop passed (${((Date.now() - started) / 1e3).toFixed(1)} s)`);

  const caseList = cases();
  console.log(`${QUICK ? 'quick mode (timings not meaningful): ' : ''}${caseList.length} cases × ${implementations.length} implementations`);
  const results = await measureAll(implementations, caseList);

  console.log(`\n## Summary: GB/s · median time per call; simd ÷ X = X's median ÷ bufferutil-simd (index.js)'s, same run\n`);
  console.log(summaryTables(implementations, results));

  const nodeMajor = process.versions.node.split('.')[0];
  const partial = ONLY_SIZES.length ? '-partial' : '';
  const base = path.join(__dirname, 'results', `bench-node${nodeMajor}${QUICK ? '-quick' : partial}`);
  const report = {
    schema: 1,
    mode: QUICK ? 'quick' : 'full',
    date: new Date().toISOString(),
    durationSeconds: Math.round((Date.now() - started) / 1e3),
    machine: machineFacts(),
    source,
    bufferutilSimd: { ...info, addonPath: undefined, addon },
    versions: { bufferutil: versionOf('bufferutil'), ws: versionOf('ws'), mitata: versionOf('mitata') },
    settings: { outputOffset: OUTPUT_OFFSET, key: [...KEY], misalignedByteOffset: 1, quickOptions: QUICK ? QUICK_OPTIONS : undefined },
    implementations: implementations.map(({ id, label, group }) => ({ id, label, group })),
    cases: [...new Map(caseList.map((c) => [c.id, { id: c.id, op: c.operation.op, title: c.title, sourceOffset: c.sourceOffset }])).values()],
    results,
  };
  fs.mkdirSync(path.dirname(base), { recursive: true });
  fs.writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 1)}\n`);
  await renderChart(`${base}.json`, `${base}.svg`);
  console.log(`wrote ${path.relative(ROOT, base)}.json and .svg in ${((Date.now() - started) / 1e3).toFixed(0)} s`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
