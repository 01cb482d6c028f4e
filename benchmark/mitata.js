'use strict';

// `npm run bench`: the benchmarks against bufferutil, ws, Node core and memcpy as a mitata suite. One mitata
// bench per implementation, operation and size; one `summary` per operation and size, so mitata prints how
// bufferutil-simd (index.js) compares with each. Checks every implementation's output first; times after.
// Runs under Node and Bun.
//
//   node benchmark/mitata.js [--quick] [--save] [--sizes=64,65536] [--cases=mask,unmask] [--impls=simd,bufferutil]
//   node benchmark/mitata.js --compare [--sizes=16,1024] [--cases=mask]
//
// --quick (or BENCH_QUICK=1): for CI. Every bench through mitata's `measure` with a tiny budget, and one
//   summary group through `run` with mitata's own budget, so both paths run; proves correctness, never speed.
// --save: write mitata's results without per-sample arrays (min, percentiles, avg per bench, ratios, the
//   machine facts) to benchmark/results/mitata-<runtime>.json; quick and partial runs as -quick / -partial,
//   which git ignores.
// --compare: the same calls timed several ways in this process, taken in turn: bench.js's loop for each
//   implementation, this suite's mitata bench (and the same with batches not unrolled, which run() cannot
//   be told), then mitata with one shared closure and fixed arguments (how benchmark/ timed before
//   bench.js); plus an empty function (what each way adds to a call). Sizes 16 B, 128 B, 1 KiB, 64 KiB
//   unless --sizes says; mask and unmask unless --cases says. Prints a table; saves nothing.
//
// What keeps mitata honest here (benchmark/README.md has the reasons and the evidence):
// - mitata compiles a fresh timing loop per bench, and each loop calls a function compiled from source text
//   of its own for that implementation and case (`new Function`, its name in the text), so the call into
//   the library is monomorphic and its feedback belongs to that implementation alone, as in a caller that
//   uses one library. No closure is shared between implementations.
// - each call takes the next of 8 inputs (keys: 4-byte slices of one pool; sources and outputs: up to 8
//   buffers) through a mitata computed parameter, so no call sees one fixed argument set and the JIT cannot
//   hoist or specialise on them.
// - before mitata starts, every call function runs over mixed sizes (16 B–64 KiB, shuffled), so what the
//   JIT makes of each library is what a caller with mixed traffic gets, not code for the first size timed.

const fs = require('fs');
const path = require('path');

const { loadImplementations, ROOT } = require('./lib/implementations');
const { addonFacts, sourceFacts, versionOf, runFacts } = require('./lib/machine');
const { ROTATION, makeTimer, summary: statsOf } = require('./lib/timing');
const { KiB, MiB, OUTPUT_OFFSET, CASES: ALL_CASES, REFERENCE, checkAll, inputsFor, shuffle, warmUp, formatSize, formatTime } = require('./lib/cases');
const { writeCompactJson } = require('./lib/report');

const argv = process.argv.slice(2);
const option = (name) => (argv.find((arg) => arg.startsWith(`--${name}=`)) || '').slice(name.length + 3);
const listOption = (name) => option(name).split(',').filter(Boolean);
const QUICK = argv.includes('--quick') || /^(1|true|yes)$/i.test(process.env.BENCH_QUICK || '');
const SAVE = argv.includes('--save');
const COMPARE = argv.includes('--compare');

const ONLY_SIZES = listOption('sizes').map(Number);
const ONLY_CASES = listOption('cases');
const ONLY_IMPLS = listOption('impls');
const keep = (sizes) => (ONLY_SIZES.length ? sizes.filter((size) => ONLY_SIZES.includes(size)) : sizes);
// 16 B to 16 MiB; index.js hands over to the addon between 64 and 176 B, depending on the runtime.
const SIZES = keep(COMPARE ? [16, 128, KiB, 64 * KiB] : [16, 32, 64, 128, 256, KiB, 4 * KiB, 16 * KiB, 64 * KiB, MiB, 16 * MiB]);
// A source at byteOffset 1 of its ArrayBuffer: no vector load of it is aligned.
const MISALIGNED_SIZES = keep([64, KiB, 64 * KiB]);
const CASES = ALL_CASES.filter((c) => (ONLY_CASES.length ? ONLY_CASES.includes(c.id) : !COMPARE || c.id === 'mask' || c.id === 'unmask'));
// mitata 1.x takes no time budget through `run()`; quick mode calls its `measure()` with these instead.
const QUICK_BUDGET = { min_cpu_time: 1e6, min_samples: 4, batch_samples: 64, warmup_samples: 1, gc: false };
// Quick mode's one group through `run()` (mitata's own budget, ~0.7 s a bench): the suite's printing path.
const QUICK_RUN_GROUP = { case: 'mask', size: KiB };
// --compare: trials per implementation and size; in each, the harness's batches, then one mitata measurement of each kind.
const COMPARE_TRIALS = 7;
const COMPARE_BATCHES = 9;
const COMPARE_BATCH_NS = 0.3e6;
const COMPARE_MITATA = { min_cpu_time: 40e6 };

const RUNTIME = typeof Bun !== 'undefined' ? `bun ${Bun.version}` : `node ${process.version}`;
const RUNTIME_TAG = typeof Bun !== 'undefined' ? 'bun' : `node${process.versions.node.split('.')[0]}`;

/** Short bench names, as mitata prints them. */
const NAMES = {
  simd: 'bufferutil-simd',
  'simd-native': 'bufferutil-simd native',
  'simd-js': 'bufferutil-simd js',
  'simd-wasm': 'bufferutil-simd wasm',
  bufferutil: `bufferutil ${versionOf('bufferutil')}`,
  'ws-js': `ws ${versionOf('ws').split('.').slice(0, 2).join('.')} js loop`,
  node: 'node http.websocketMask',
};
const referenceName = (benchCase) => (benchCase.reference === 'copy' ? 'memcpy (u8.set)' : 'memset (buf.fill)');

/** The statement one call runs, by what it times; `input` is one of the rotating input sets. */
const BODIES = {
  mask: 'fn(input.source, input.key, input.output, input.offset, input.length);',
  unmask: 'fn(input.source, input.key);',
  copy: 'input.output.set(input.source, input.offset);', // memcpy: TypedArray.prototype.set
  fill: 'input.source.fill(0x5a);', // memset: Buffer.prototype.fill
};

/**
 * The function mitata times for one implementation and case, compiled from source text of its own (its name
 * is in the text: V8 caches `new Function` by source, and a cache hit would share feedback), so the call
 * into the library has a call site and feedback of its own.
 */
function makeCall(kind, caseId, implId, fn) {
  const name = `mitata_${caseId}_${implId}`.replace(/\W/g, '_');
  return new Function('fn', `return function ${name}(input) { ${BODIES[kind]} };`)(fn);
}

/** ROTATION input sets `{ source, key, output, offset, length }` for one case and size (lib/cases.js's inputs). */
function rotatingInputs(benchCase, size) {
  const { sources, keys, outputs, offset, length } = inputsFor(benchCase, size);
  return sources.map((source, j) => ({ source, key: keys[j], output: outputs[j], offset, length }));
}

/** The mitata benchmark: a generator that makes its inputs, then yields the call and a rotating parameter. */
function benchmarkOf(call, benchCase, size) {
  return function* rotatingBench() {
    const rotation = rotatingInputs(benchCase, size);
    let next = 0;
    yield {
      // A computed parameter: mitata calls it outside the timed region, for every call it times.
      [0]() {
        next = (next + 1) & (ROTATION - 1);
        return rotation[next];
      },
      bench: call,
    };
  };
}

/** The rows of one case: `{ id, name, call }` per implementation, then the memory reference. */
function rowsFor(benchCase, implementations) {
  const rows = implementations.map((impl) => ({
    id: impl.id,
    name: NAMES[impl.id] ?? impl.id,
    call: makeCall(benchCase.kind, benchCase.id, impl.id, benchCase.kind === 'mask' ? impl.mask : impl.unmask),
  }));
  rows.push({ id: 'reference', name: referenceName(benchCase), call: makeCall(benchCase.reference, benchCase.id, 'reference', null) });
  return rows;
}

/** No two rows may share a call function or its source text: a shared one would be a megamorphic call site. */
function assertOwnCallSites(table) {
  const texts = new Set();
  let count = 0;
  for (const { rows } of table) {
    for (const row of rows) {
      texts.add(row.call.toString());
      count++;
    }
  }
  if (texts.size !== count) throw new Error(`${count} call functions but ${texts.size} distinct sources: some share a call site`);
}

/** mitata's figures for one bench without its samples (and without the generated loop's source). */
function statsOfRun(stats) {
  const { samples, debug, kind, ...rest } = stats;
  return { ...rest, samplesKept: samples.length };
}

/** Flat result rows with ratios on mitata's p50: `vsBufferutil` = bufferutil's ÷ this, `simdOver` = this ÷ simd's. */
function resultRows(measured) {
  const rows = [];
  const cells = new Map();
  for (const m of measured) {
    const key = `${m.case} ${m.size}`;
    if (!cells.has(key)) cells.set(key, []);
    cells.get(key).push(m);
  }
  for (const cell of cells.values()) {
    const p50 = (id) => cell.find((m) => m.impl === id)?.stats.p50;
    for (const m of cell) {
      rows.push({
        case: m.case,
        size: m.size,
        impl: m.impl,
        name: m.name,
        stats: m.stats,
        gbps: m.size / m.stats.p50,
        vsBufferutil: p50('bufferutil') / m.stats.p50,
        simdOver: m.impl === 'simd' ? undefined : m.stats.p50 / p50('simd'),
      });
    }
  }
  return rows;
}

/** One table per case: mitata's p50 per call, and speed ÷ bufferutil's (its p50 ÷ this one's). */
function tables(results, cases) {
  const lines = [];
  for (const benchCase of cases) {
    const rows = results.filter((r) => r.case === benchCase.id);
    if (rows.length === 0) continue;
    const ids = [...new Set(rows.map((r) => r.impl))];
    const sizes = [...new Set(rows.map((r) => r.size))];
    const label = (id) => (id === 'reference' ? referenceName(benchCase) : id);
    lines.push(`#### ${benchCase.id} — ${benchCase.title}`, '', 'mitata p50 per call · speed ÷ bufferutil\'s (above 1 is faster):', '');
    lines.push(`| size | ${ids.map(label).join(' | ')} |`, `|---:|${ids.map(() => '---:').join('|')}|`);
    for (const size of sizes) {
      const cell = (id) => {
        const r = rows.find((row) => row.size === size && row.impl === id);
        return r ? `${formatTime(r.stats.p50)} · ${r.vsBufferutil.toFixed(2)}` : '';
      };
      lines.push(`| ${formatSize(size)} | ${ids.map(cell).join(' | ')} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

/**
 * Node without --expose-gc: mitata's stand-in for a collection is allocating 1 GiB. Expose V8's gc instead
 * (before mitata loads, which looks once).
 */
function exposeGc() {
  if (typeof Bun !== 'undefined' || typeof globalThis.gc === 'function') return;
  try {
    require('v8').setFlagsFromString('--expose-gc');
    globalThis.gc = require('vm').runInNewContext('gc');
  } catch {}
}

/**
 * --compare: each implementation's calls timed several ways in this process, on the same rotating inputs, the
 * ways taken in turn COMPARE_TRIALS times so that a loaded machine slows them alike:
 * `harness`: bench.js's loop for that implementation (lib/timing.js, compiled for it alone, warmed over mixed
 *   sizes as bench.js warms it), median of COMPARE_BATCHES batches of ~0.3 ms;
 * `mitata`: this suite's bench (own call site, rotating computed parameter) through `mitata.measure` with
 *   the options `run()` uses (batches unrolled 4×), p50;
 * `mitata, unroll 1`: the same with `batch_unroll: 1`, which `run()` cannot be given;
 * then, in a second pass (it changes what the JIT knows about the libraries, so it runs after the first),
 * `shared`: one arrow function literal for every implementation (its call site megamorphic) with fixed
 *   arguments through `mitata.measure`, p50, against the harness again — how benchmark/ timed before.
 * Reported: medians over trials, and medians of per-trial ratios to the harness.
 */
async function compare(mitata, table, implementations) {
  const fnOf = (benchCase, id) => {
    const impl = implementations.find((i) => i.id === id);
    return impl ? (benchCase.kind === 'mask' ? impl.mask : impl.unmask) : null;
  };
  // bench.js's timers: one per case and implementation, shared by the sizes, warmed over mixed sizes.
  const warmSizes = [16, 32, 48, 64, 96, 128, 256, 512, KiB, 4 * KiB, 16 * KiB, 64 * KiB];
  for (const entry of table) {
    const { benchCase, rows } = entry;
    entry.timers = rows.map((row) => makeTimer(row.id === 'reference' ? benchCase.reference : benchCase.kind, `cmp_${benchCase.id}_${row.id}`, fnOf(benchCase, row.id)));
    const inputs = new Map(warmSizes.map((size) => [size, inputsFor(benchCase, size)]));
    for (let pass = 0; pass < 3; pass++) {
      for (const size of shuffle([...warmSizes])) {
        for (const timer of shuffle([...entry.timers])) timer(inputs.get(size), Math.max(4, Math.floor(400_000 / (size + 64))));
      }
    }
  }
  const median = (values) => statsOf(values).median;
  const calibrate = (timer, inputs) => {
    for (let calls = 1; ; calls *= 4) {
      const ns = timer(inputs, calls);
      if (ns >= COMPARE_BATCH_NS / 4 || calls >= 1 << 24) return Math.max(1, Math.round((calls * COMPARE_BATCH_NS) / Math.max(ns, 1)));
    }
  };
  const harnessNs = (timer, inputs, calls) => median(Array.from({ length: COMPARE_BATCHES }, () => timer(inputs, calls) / calls));
  const ratio = (list, base) => median(list.map((ns, t) => ns / base[t])).toFixed(2);

  const cells = [];
  for (const { benchCase, rows, timers } of table) {
    for (const size of SIZES) {
      const inputs = inputsFor(benchCase, size);
      for (let k = 0; k < rows.length; k++) {
        const calls = calibrate(timers[k], inputs);
        const cell = { benchCase, size, row: rows[k], timer: timers[k], inputs, calls, harness: [], suite: [], unroll1: [] };
        for (let trial = 0; trial < COMPARE_TRIALS; trial++) {
          cell.harness.push(harnessNs(timers[k], inputs, calls));
          cell.suite.push((await mitata.measure(benchmarkOf(rows[k].call, benchCase, size), { ...COMPARE_MITATA })).p50);
          cell.unroll1.push((await mitata.measure(benchmarkOf(rows[k].call, benchCase, size), { ...COMPARE_MITATA, batch_unroll: 1 })).p50);
        }
        cells.push(cell);
      }
    }
  }
  // The second pass: the shared closure's call site sees every implementation before anything is timed.
  const closures = new Map(cells.map((cell) => [cell, sharedClosure(cell.benchCase, fnOf(cell.benchCase, cell.row.id), rotatingInputs(cell.benchCase, cell.size)[0])]));
  for (const cell of cells) for (let i = 0; i < 100; i++) closures.get(cell)();
  for (const cell of cells) {
    cell.harness2 = [];
    cell.shared = [];
    for (let trial = 0; trial < COMPARE_TRIALS; trial++) {
      cell.harness2.push(harnessNs(cell.timer, cell.inputs, cell.calls));
      cell.shared.push((await mitata.measure(closures.get(cell), { ...COMPARE_MITATA })).p50);
    }
  }

  const lines = [
    `${COMPARE_TRIALS} trials; mitata ${COMPARE_MITATA.min_cpu_time / 1e6} ms a measurement; harness ${COMPARE_BATCHES} batches of ~${COMPARE_BATCH_NS / 1e6} ms; ` +
      'ratios: median of per-trial ratios to the harness',
    '',
    '| case | size | implementation | harness | mitata (this suite) | mitata, unroll 1 | suite ÷ harness | unroll 1 ÷ harness | shared closure, fixed args ÷ harness |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const { benchCase, size, row, harness, suite, unroll1, harness2, shared } of cells) {
    lines.push(`| ${benchCase.id} | ${formatSize(size)} | ${row.name} | ${formatTime(median(harness))} | ${formatTime(median(suite))} | ` +
      `${formatTime(median(unroll1))} | ${ratio(suite, harness)} | ${ratio(unroll1, harness)} | ${ratio(shared, harness2)} |`);
  }
  return lines.join('\n');
}

/** One arrow literal for every implementation: its call site sees them all. Fixed arguments. */
function sharedClosure(benchCase, fn, { source, key, output, offset, length }) {
  if (fn === null) return benchCase.reference === 'copy' ? () => output.set(source, offset) : () => source.fill(0x5a);
  return benchCase.kind === 'mask' ? () => fn(source, key, output, offset, length) : () => fn(source, key);
}

async function main() {
  const started = Date.now();
  exposeGc();
  const mitata = await import('mitata');
  const { implementations: all, info } = loadImplementations();
  const implementations = all.filter((impl) => ONLY_IMPLS.length === 0 || ONLY_IMPLS.includes(impl.id));
  // Hashed now, as loaded: a rebuild during the run must not relabel what was measured.
  const addon = addonFacts(ROOT, info.addonPath);
  const source = sourceFacts(ROOT);
  console.log(`${RUNTIME}; mitata ${versionOf('mitata')}; bufferutil-simd backend ${info.backend}`);
  console.log(`implementations: ${implementations.map((impl) => impl.id).join(', ')}, and memcpy / memset`);
  if (!info.nodeCoreMask) console.log('no http.websocketMask here (Node 26+ has it): no "node" bench');

  const { failures, checks } = checkAll(implementations, [...SIZES, ...MISALIGNED_SIZES]);
  if (failures.length > 0) {
    console.error(`${failures.length} of ${checks} correctness checks FAILED:\n  ${failures.slice(0, 50).join('\n  ')}`);
    process.exit(1);
  }
  console.log(`correctness: ${checks} checks against the reference loop passed (${((Date.now() - started) / 1e3).toFixed(1)} s)`);

  const table = CASES.map((benchCase) => ({ benchCase, rows: rowsFor(benchCase, implementations) }));
  assertOwnCallSites(table);
  warmUp(table, {
    quick: QUICK,
    inputs: rotatingInputs,
    run: (row, rotation, calls) => {
      for (let i = 0; i < calls; i++) row.call(rotation[i & (ROTATION - 1)]);
    },
  });
  console.log(`warm-up over mixed sizes done in ${((Date.now() - started) / 1e3).toFixed(1)} s\n`);

  if (COMPARE) {
    // An empty function as one more implementation: what each way of timing adds to every call.
    const empty = { id: 'empty', mask: function empty() {}, unmask: function empty() {} };
    for (const entry of table) {
      entry.rows.unshift({ id: 'empty', name: 'empty function', call: makeCall(entry.benchCase.kind, entry.benchCase.id, 'empty', empty.mask) });
    }
    console.log(await compare(mitata, table, [empty, ...implementations]));
    console.log(`\ndone in ${((Date.now() - started) / 1e3).toFixed(0)} s`);
    return;
  }

  const cells = [];
  for (const { benchCase, rows } of table) {
    for (const size of benchCase.sourceOffset ? MISALIGNED_SIZES : SIZES) cells.push({ benchCase, size, rows });
  }

  // The suite: a group per case and size, each a summary with bufferutil-simd (index.js) as its baseline.
  const register = (list) => {
    const registered = [];
    mitata.compact(() => {
      for (const { benchCase, size, rows } of list) {
        mitata.group(`${benchCase.id} · ${formatSize(size)}`, () => {
          mitata.summary(() => {
            for (const row of rows) {
              const bench = mitata.bench(row.name, benchmarkOf(row.call, benchCase, size));
              if (row.id === 'simd') bench.baseline(true);
              registered.push({ case: benchCase.id, size, impl: row.id, name: row.name });
            }
          });
        });
      }
    });
    return registered;
  };
  const runSuite = async (list) => {
    const registered = register(list);
    const { benchmarks, context } = await mitata.run({ colors: Boolean(process.stdout.isTTY), throw: true });
    if (benchmarks.length !== registered.length) throw new Error(`mitata ran ${benchmarks.length} benches, ${registered.length} registered`);
    const measured = registered.map((entry, i) => ({ ...entry, stats: statsOfRun(benchmarks[i].runs[0].stats) }));
    return { measured, context };
  };

  let measured;
  let context;
  if (QUICK) {
    measured = [];
    for (const { benchCase, size, rows } of cells) {
      for (const row of rows) {
        const stats = await mitata.measure(benchmarkOf(row.call, benchCase, size), { ...QUICK_BUDGET });
        measured.push({ case: benchCase.id, size, impl: row.id, name: row.name, stats: statsOfRun(stats) });
      }
    }
    console.log(`quick mode (timings not meaningful): ${measured.length} benches through mitata.measure with a tiny budget`);
    const one = cells.filter((cell) => cell.benchCase.id === QUICK_RUN_GROUP.case && cell.size === QUICK_RUN_GROUP.size);
    if (one.length > 0) {
      console.log(`and the ${QUICK_RUN_GROUP.case} · ${formatSize(QUICK_RUN_GROUP.size)} group through mitata.run:\n`);
      ({ context } = await runSuite(one));
    }
  } else {
    ({ measured, context } = await runSuite(cells));
  }

  const results = resultRows(measured);
  console.log(`\n${tables(results, CASES)}`);
  console.log(`done in ${((Date.now() - started) / 1e3).toFixed(0)} s`);
  if (!SAVE) return;

  const partial = ONLY_SIZES.length || ONLY_CASES.length || ONLY_IMPLS.length;
  const file = path.join(__dirname, 'results', `mitata-${RUNTIME_TAG}${QUICK ? '-quick' : partial ? '-partial' : ''}.json`);
  const report = {
    ...runFacts({ schema: 1, quick: QUICK, started, runtime: RUNTIME, source, info, addon, extra: ['mitata'] }),
    settings: {
      method: 'mitata run(): one bench per implementation, case and size, each calling a function compiled for that ' +
        'implementation and case alone; a computed parameter rotates over 8 input sets (keys and buffers); warm-up over ' +
        'mixed sizes first; benches run one after another (not interleaved); ratios are of mitata p50s',
      budget: QUICK ? { ...QUICK_BUDGET, note: `all benches through measure(); ${QUICK_RUN_GROUP.case} ${QUICK_RUN_GROUP.size} B also through run()` } : 'mitata defaults',
      rotation: ROTATION,
      outputOffset: OUTPUT_OFFSET,
      misalignedByteOffset: 1,
      references: REFERENCE,
    },
    // mitata's run context (CPU clock estimate, runtime, the empty loop's figures), without samples.
    context: context && { ...context, noop: Object.fromEntries(Object.entries(context.noop).map(([k, v]) => [k, statsOfRun(v)])) },
    implementations: [
      ...implementations.map(({ id, label, group }) => ({ id, name: NAMES[id] ?? id, label, group })),
      { id: 'reference', name: 'memcpy (u8.set) / memset (buf.fill)', label: 'reference: memcpy (set) / memset (fill)', group: 'reference' },
    ],
    cases: CASES.map(({ id, kind, inPlace, sourceOffset, title, reference }) => ({ id, op: kind, inPlace, sourceOffset, title, reference })),
    results,
  };
  writeCompactJson(file, report);
  console.log(`wrote ${path.relative(ROOT, file)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
