'use strict';

// `npm run bench`: masking implementations side by side through lib/harness.js, timed with mitata (benchmark/README.md).

const fs = require('node:fs');

const { load } = require('./lib/implementations');
const { chart } = require('./lib/chart');
const { ROTATION, OFFSET, median, spread, shuffle, inputsFor, callSites, check, measure } = require('../lib/harness');
const { args, parse, fail, bytes, formatSpread, formatSize, formatNs, markdown } = require('./lib/common');
const { runtime, cpu, machine, childTask: CHILD, runChild } = require('./lib/common');

const OPTIONS = 'before baseline impl ops sizes rounds key processes working-set svg note from json';
const { option, list, quick: QUICK, positive, oneOf, listOf } = parse(OPTIONS.split(' '));
const BEFORE = option('before');
const BASELINES = list('baseline', 'bufferutil');
const DEFAULT_IMPLS = 'bufferutil-simd,bufferutil,ws-js,core,wasm,js,memcpy';
const IMPLS = [...new Set([...list('impl', DEFAULT_IMPLS), ...(BEFORE ? ['before'] : []), ...BASELINES])];
const OPS = listOf('ops', ['mask', 'mask-in-place', 'unmask']);
const SIZES = list('sizes', '16,48,64,128,256,1k,16k,1m').map(bytes);
const ROUNDS = positive('rounds', QUICK ? 2 : 15, true);
const KEY = { keyAsArray: oneOf('key', ['view', 'array']) === 'array' }; // inputsFor's option
const PROCESSES = positive('processes', 1, true);
const WORKING_SET = oneOf('working-set', ['rotate', 'pair']); // README
// Per implementation and round ~ROUND_NS of samples in batches of ~SAMPLE_NS; not unrolled, no gc forced (README).
const [ROUND_NS, SAMPLE_NS] = [QUICK ? 0.2e6 : 10e6, 0.2e6];
const MITATA = { gc: false, batch_unroll: 1, batch_threshold: Infinity, warmup_threshold: Infinity, min_samples: QUICK ? 2 : 8 };

const log = CHILD ? console.error : console.log;

/** Runs each row over mixed sizes, shuffled, before anything is timed: the JIT sees mixed traffic, not the first size timed. */
function warmUp(rows) {
  const mix = [16, 32, 48, 64, 96, 128, 256, 512, 1024, 4096, 16384, 65536];
  const inputs = new Map(OPS.flatMap((op) => mix.map((size) => [`${op} ${size}`, inputsFor(op, size, KEY)])));
  for (const size of Array.from({ length: QUICK ? 1 : 3 }, () => [...shuffle(mix)]).flat()) {
    for (const row of rows) {
      const sets = inputs.get(`${row.op} ${size}`);
      for (let i = 0, calls = QUICK ? 2 : Math.floor(200_000 / (size + 64)); i < calls; i++) row.call(sets[i & (ROTATION - 1)]);
    }
  }
}

// mitata as the harness's timer: a row's batch sized to ~SAMPLE_NS, then each time one `mitata.measure` of ~ROUND_NS, its p50.
async function mitataTimer({ call }, inputs) {
  const mitata = await import('mitata');
  // The call with the next input set from a computed parameter (outside the timed region); `next` stays far below 2^30.
  function* rotating() {
    let next = 0;
    yield { 0: () => inputs[++next & (ROTATION - 1)], bench: call };
  }
  const probe = { ...MITATA, batch_samples: 4, min_samples: 2, min_cpu_time: 0 };
  const p50 = QUICK ? SAMPLE_NS / 4 : (await mitata.measure(rotating, probe)).p50;
  const batch_samples = Math.max(1, Math.min(4096, Math.round(SAMPLE_NS / p50)));
  return async () => (await mitata.measure(rotating, { ...MITATA, batch_samples, min_cpu_time: ROUND_NS })).p50;
}

async function runHere() {
  const { loaded, skipped } = load(IMPLS, { before: BEFORE });
  const rows = callSites(OPS, loaded);
  const mismatch = check(rows, SIZES, KEY);
  if (mismatch) fail(mismatch);
  log(`correctness: every implementation's timed calls agree with the byte loop (edge cases: npm test)`);
  warmUp(rows);
  const options = { ...KEY, workingSet: WORKING_SET, rounds: ROUNDS, timer: mitataTimer, bases: BASELINES };
  const cells = await measure(rows, SIZES, { ...options, onCell: () => process.stderr.write('.') });
  process.stderr.write('\n');
  const implementations = loaded.map(({ id, label }) => ({ id, label }));
  return { implementations, skipped, cells, spread: 'rounds', workingSet: WORKING_SET };
}

/** --processes=N: N children run one after another (never side by side: they would share the cores), summarised per figure. */
function runChildren() {
  const runs = Array.from({ length: PROCESSES }, (_, p) => {
    process.stderr.write(`process ${p + 1} of ${PROCESSES}\n`);
    return runChild({ process: p + 1 }); // it reads neither --processes nor --json
  });
  const cells = runs[0].cells.map((cell, c) => ({
    ...cell,
    rows: cell.rows.map((row, r) => {
      const ofRuns = runs.map((run) => run.cells[c].rows[r]);
      const ratios = Object.keys(row.ratios).map((base) => [base, spread(ofRuns.map((x) => x.ratios[base].median))]);
      return { id: row.id, ns: median(ofRuns.map((x) => x.ns)), ratios: Object.fromEntries(ratios) };
    }),
  }));
  return { ...runs[0], cells, spread: 'processes' };
}

function table({ implementations, cells }) {
  const ids = implementations.map((impl) => impl.id);
  // Every implementation against each baseline, but a baseline against a later one only (not both ways).
  const bases = BASELINES.filter((base) => ids.includes(base));
  const ratioColumns = bases.flatMap((base, b) =>
    ids.filter((id) => id !== base && !bases.slice(0, b).includes(id)).map((id) => [id, base])
  );
  const header = ['op', 'size', ...ids.map((id) => `${id} ns`), ...ratioColumns.map(([id, base]) => `${id} ÷ ${base}`)];
  const lines = cells.map(({ op, size, rows }) => {
    const ratios = ratioColumns.map(([id, base]) => formatSpread(rows[ids.indexOf(id)].ratios[base])); // rows in ids' order
    return [op, formatSize(size), ...rows.map((row) => formatNs(row.ns)), ...ratios];
  });
  return markdown(header, (i) => i >= 2, lines);
}

async function run() {
  log(`${machine()} · mitata ${require('mitata/package.json').version}`);
  log(
    `${QUICK ? 'QUICK (timings meaningless): ' : ''}${ROUNDS} interleaved rounds of ~${ROUND_NS / 1e6} ms per implementation, ${PROCESSES} process(es); ops: ${OPS.join(', ')} (mask: into another buffer at offset ${OFFSET}), working set ${WORKING_SET}`
  );
  const result = PROCESSES > 1 ? runChildren() : await runHere();
  for (const { id, label } of result.implementations) log(`  ${id}: ${label}`);
  for (const { id, reason } of result.skipped) log(`  ${id}: skipped, ${reason}`);
  const range = result.spread === 'rounds' ? 'the lowest and highest round' : `the lowest and highest of ${PROCESSES} processes`;
  log(`\nns: median per call. A ÷ B: B's time ÷ A's (above 1: A is faster), median of per-round ratios (${range}).\n`);
  log(table(result));
  const summary = { runtime, cpu: cpu(), date: new Date().toISOString(), args, ...result };
  // Figures to 4 significant digits (finer than any run repeats), a cell a line.
  const figure = (_key, value) => (typeof value !== 'number' || Number.isInteger(value) ? value : Number(value.toPrecision(4)));
  if (option('json')) fs.writeFileSync(option('json'), `${JSON.stringify(summary, figure).replaceAll(',{"op"', ',\n{"op"')}\n`);
  return summary;
}

async function main() {
  if (CHILD) return process.stdout.write(JSON.stringify(await runHere()));
  const [from, svg, baseline] = [list('from', ''), option('svg'), BASELINES[0]];
  if (from.length && !svg) fail('--from=FILES needs --svg=FILE', 2);
  const runs = from.length ? from.map((file) => JSON.parse(fs.readFileSync(file, 'utf8'))) : [await run()];
  if (!svg) return;
  fs.writeFileSync(svg, chart(runs, { baseline, note: option('note') }));
  log(`chart: ${svg} (${runs.map((r) => r.runtime).join(', ')}; bufferutil-simd ÷ ${baseline})`);
}

main().catch(fail);
