'use strict';

// `npm run bench:interleaved`: every masking implementation side by side in one process, each timed at its own call
// site, in interleaved rounds, so that ratios between them hold on a noisy machine. Checks every
// implementation's output first; times after. Runs under Node and Bun.
//
//   node benchmark/bench.js [--quick] [--save] [--sizes=64,65536] [--rounds=41] [--batch-ms=0.3]
//                           [--views=direct,ws] [--cases=mask,unmask] [--levels]
//
// --quick (or BENCH_QUICK=1): tiny budgets, for CI: proves correctness and that every path runs, never speed.
// --save: write results to benchmark/results/bench-<runtime>.{json,svg}; without it nothing is written. The
//   JSON holds the summaries (median, p25–p75, min per cell, ratios) and the machine facts; every round's
//   figure goes to bench-<runtime>.samples.json beside it, which git ignores.
// --out=DIR: write the JSON (no chart) to DIR instead (benchmark/repeat.js runs bench.js that way).

const fs = require('fs');
const path = require('path');

const { loadImplementations, ROOT } = require('./lib/implementations');
const { addonFacts, sourceFacts, runFacts } = require('./lib/machine');
const { ROTATION, makeTimer, throughWs, summary, ratioSummary } = require('./lib/timing');
const { KiB, MiB, OUTPUT_OFFSET, CASES: ALL_CASES, REFERENCE, checkAll, inputsFor, warmUp, formatSize, formatTime } = require('./lib/cases');
const { writeCompactJson } = require('./lib/report');

const argv = process.argv.slice(2);
const option = (name) => (argv.find((arg) => arg.startsWith(`--${name}=`)) || '').slice(name.length + 3);
const listOption = (name) => option(name).split(',').filter(Boolean);
const QUICK = argv.includes('--quick') || /^(1|true|yes)$/i.test(process.env.BENCH_QUICK || '');
const OUT = option('out');
const SAVE = argv.includes('--save') || OUT !== '';

const ONLY_SIZES = listOption('sizes').map(Number);
const keep = (sizes) => (ONLY_SIZES.length ? sizes.filter((size) => ONLY_SIZES.includes(size)) : sizes);
const SIZES = keep([16, 32, 48, 64, 96, 128, 256, 512, KiB, 4 * KiB, 16 * KiB, 64 * KiB, MiB, 16 * MiB]);
// A source at byteOffset 1 of its ArrayBuffer: no vector load of it is aligned.
const MISALIGNED_SIZES = keep([64, 256, KiB, 64 * KiB, MiB]);
const ROUNDS = Number(option('rounds')) || (QUICK ? 2 : 41);
const BATCH_NS = (Number(option('batch-ms')) || (QUICK ? 0.02 : 0.3)) * 1e6;
const VIEWS = listOption('views').length ? listOption('views') : ['direct', 'ws'];
const ONLY_CASES = listOption('cases');
// ws 8.23 lib/buffer-util.js: its byte loop below these sizes, the library from there.
const WS_THRESHOLDS = { bufferutil: { maskFrom: 48, unmaskFrom: 32 }, node: { maskFrom: 24, unmaskFrom: 24 } };

const RUNTIME = typeof Bun !== 'undefined' ? `bun ${Bun.version}` : `node ${process.version}`;
const RUNTIME_TAG = typeof Bun !== 'undefined' ? 'bun' : `node${process.versions.node.split('.')[0]}`;

const CASES = ALL_CASES.filter((c) => ONLY_CASES.length === 0 || ONLY_CASES.includes(c.id));

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
  const { failures, checks } = checkAll(checked, [...SIZES, ...MISALIGNED_SIZES]);
  if (failures.length > 0) {
    console.error(`${failures.length} of ${checks} correctness checks FAILED:\n  ${failures.slice(0, 50).join('\n  ')}`);
    process.exit(1);
  }
  console.log(`correctness: ${checks} checks against the reference loop passed, direct and through ws (${((Date.now() - started) / 1e3).toFixed(1)} s)`);

  const table = [];
  for (const view of VIEWS) {
    for (const benchCase of CASES) table.push({ view, benchCase, rows: rowsFor(view, benchCase, implementations, wsLoop) });
  }
  warmUp(table, { quick: QUICK, inputs: inputsFor, run: (row, input, calls) => row.timer(input, calls) });
  console.log(`${QUICK ? 'quick mode (timings not meaningful): ' : ''}${ROUNDS} rounds per cell, batches of ~${(BATCH_NS / 1e6).toFixed(2)} ms; warm-up done in ${((Date.now() - started) / 1e3).toFixed(1)} s\n`);

  const results = [];
  // Every round's figure per row, saved apart from the summaries (results/*.samples.json is not committed).
  const samples = [];
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
        });
        samples.push({ view, case: benchCase.id, size, impl: row.id, roundsNs: row.roundsNs.map((ns) => Number(ns.toPrecision(4))) });
      }
    }
    console.log(tablesFor(view, benchCase, cells, rows.map((row) => row.id)));
  }

  console.log(`done in ${((Date.now() - started) / 1e3).toFixed(0)} s`);
  if (!SAVE) return;
  const suffix = QUICK ? '-quick' : ONLY_SIZES.length || ONLY_CASES.length || listOption('views').length ? '-partial' : '';
  const base = path.join(OUT ? path.resolve(OUT) : path.join(__dirname, 'results'), `bench-${RUNTIME_TAG}${suffix}`);
  const report = {
    // 3: no per-round samples here (schema 2 had `roundsNs` in every result); they are in `samples`.
    ...runFacts({ schema: 3, quick: QUICK, started, runtime: RUNTIME, source, info, addon }),
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
    samples: `${path.basename(base)}.samples.json (every round's ns per call; kept locally, not committed)`,
    results,
  };
  writeCompactJson(`${base}.json`, report);
  writeCompactJson(`${base}.samples.json`, { runtime: RUNTIME, date: report.date, source, samples }, ['samples']);
  console.log(`wrote ${path.relative(ROOT, base)}.json and .samples.json`);
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
