'use strict';

// `npm run bench:wasm-vs-ws-masking -- --ws-masking=DIR`: the WebAssembly tier (lib/wasm.js, as shipped:
// every argument checked) side by side with tsctx/ws-masking's synchronous WebAssembly build
// (`DIR/wasm-sync.js`, i.e. `collections/initialize-wasm-sync.js`: no argument checks), per case and size.
//
// ws-masking is not on npm: export a checkout of github.com/tsctx/ws-masking into DIR (default
// ~/.cache/bufferutil-simd/ws-masking, or $WS_MASKING_DIR). Nothing of it is copied into this repository.
//
//   node benchmark/wasm-vs-ws-masking.js [--ws-masking=DIR] [--runs=N] [--quick] [--sizes=256,1024]
//     [--cases=mask,mask-in-place,unmask] [--rounds=N] [--extra=[LABEL=]FILE,…] [--save]
//
// Method, as bench.js: both are checked against the plain byte loop first (whole backing stores, guards
// around the views; any mismatch stops the run); each implementation and case gets its own timed loop
// (lib/timing.js's `makeTimer`, `new Function`), over inputs of its own rotating through 8 buffers and 8
// keys; every loop is first warmed over mixed sizes; rounds interleave the implementations (order rotating
// each round), and the speed figure is the median over rounds of the per-round ratio ws-masking's time ÷
// ours (above 1: ours is faster), with its interquartile range. `--extra=[LABEL=]FILE,…` adds modules
// exporting `mask` / `unmask` as more columns (for A/B of a change to lib/wasm.js, e.g. an older checkout's
// lib/wasm.js). `--save` writes
// `results/wasm-vs-ws-masking-<runtime>.json`.
//
// `--runs=N` runs the whole thing in N processes, one after another, and summarises each cell as the
// median over processes of the process's ratio, with the lowest and highest. One process is not enough
// from 2 KiB up: where the allocator puts a buffer decides whether a copy of it hits 4K aliasing (a copy
// whose destination is ~1-38 bytes past its source modulo 4096 runs ~20x slower on this CPU, through
// glibc's `rep movsb` from ~2.1 KiB), each implementation at a different ~38 bytes of the 4096 (its
// scratch's place), and which buffers land there changes from process to process.

const fs = require('fs');
const os = require('os');
const path = require('path');

const { CASES, KiB, MiB, OUTPUT_OFFSET, checkAll, formatSize, inputsFor, warmUp } = require('./lib/cases');
const { machineFacts, sourceFacts } = require('./lib/machine');
const { writeCompactJson, round } = require('./lib/report');
const { makeTimer, ratioSummary, summary } = require('./lib/timing');

const ROOT = path.join(__dirname, '..');
const args = process.argv.slice(2);
const option = (name) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const list = (name) => (option(name) || '').split(',').filter(Boolean);

const QUICK = args.includes('--quick') || process.env.BENCH_QUICK === '1';
const SAVE = args.includes('--save');
const RUNS = Number(option('runs')) || 1;
const JSON_OUT = option('json-out');
const WS_MASKING = path.resolve(option('ws-masking') || process.env.WS_MASKING_DIR || path.join(os.homedir(), '.cache', 'bufferutil-simd', 'ws-masking'));
const EXTRA = list('extra');
const SIZES = [64, 128, 256, 512, KiB, 4 * KiB, 16 * KiB, 64 * KiB, MiB];
const ONLY_SIZES = list('sizes').map(Number);
const CASE_IDS = list('cases').length ? list('cases') : ['mask', 'mask-in-place', 'unmask'];
const ROUNDS = Number(option('rounds')) || (QUICK ? 3 : 31);
const ROUND_NS = (QUICK ? 0.5 : 8) * 1e6;

const runtime =
  typeof Bun !== 'undefined' ? `bun ${Bun.version}` : typeof Deno !== 'undefined' ? `deno ${Deno.version.deno}` : `node ${process.version}`;
const runtimeTag = typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : `node${process.versions.node.split('.')[0]}`;

function loadImplementations() {
  const entry = path.join(WS_MASKING, 'wasm-sync.js');
  if (!fs.existsSync(entry)) {
    console.error(
      `no ws-masking at ${WS_MASKING}: export github.com/tsctx/ws-masking there (it is not on npm), e.g.\n` +
        `  git clone --depth 1 https://github.com/tsctx/ws-masking ${WS_MASKING}\n` +
        'or pass --ws-masking=DIR.'
    );
    process.exit(2);
  }
  const wasm = require(path.join(ROOT, 'lib', 'wasm.js'));
  const wsMasking = require(entry);
  const list = [
    { id: 'simd-wasm', mask: wasm.mask, unmask: wasm.unmask },
    { id: 'ws-masking', mask: wsMasking.mask, unmask: wsMasking.unmask },
  ];
  for (const entry of EXTRA) {
    // `label=file` or just `file` (labelled by its name).
    const [label, file] = entry.includes('=') ? entry.split('=') : [path.basename(entry, '.js'), entry];
    const extra = require(path.resolve(file));
    list.push({ id: label, mask: extra.mask, unmask: extra.unmask });
  }
  return list;
}

function measureAll() {
  const started = Date.now();
  const implementations = loadImplementations();
  const sizes = ONLY_SIZES.length ? SIZES.filter((size) => ONLY_SIZES.includes(size)) : SIZES;
  const cases = CASES.filter((benchCase) => CASE_IDS.includes(benchCase.id));
  const machine = machineFacts();
  console.log(`${runtime}; ${machine.cpu.model} (${machine.cpu.logicalCores} logical cores); ${ROUNDS} rounds × ~${ROUND_NS / 1e6} ms per implementation`);

  const { failures, checks } = checkAll(implementations, sizes);
  if (failures.length) {
    for (const failure of failures) console.error(`MISMATCH ${failure}`);
    process.exit(1);
  }
  console.log(`correctness: ${checks} checks against the byte loop, all equal\n`);

  // One timer per implementation and case, warmed over mixed sizes before anything is timed.
  const table = cases.map((benchCase) => ({
    benchCase,
    rows: implementations.map((impl) => ({ impl, time: makeTimer(benchCase.kind, `${impl.id}_${benchCase.id}`, impl[benchCase.kind]) })),
  }));
  warmUp(table, { quick: QUICK, inputs: inputsFor, run: (row, inputs, calls) => row.time(inputs, calls) });

  // Speeds relative to ws-masking: its time ÷ each other implementation's, per round (above 1: faster).
  const BASE = 'ws-masking';
  const others = implementations.filter((impl) => impl.id !== BASE).map((impl) => impl.id);
  const header = ['case', 'size', ...implementations.map((impl) => `${impl.id} ns`), ...others.map((id) => `${id} speed ÷ ${BASE} (p25–p75)`)];
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  const results = [];
  for (const { benchCase, rows } of table) {
    for (const size of sizes) {
      // Inputs of its own for each implementation: none finds another's bytes in its cache.
      const jobs = rows.map((row) => ({ ...row, inputs: inputsFor(benchCase, size), samples: [] }));
      for (const job of jobs) {
        let calls = 4;
        let ns = job.time(job.inputs, calls);
        while (ns < ROUND_NS / 4) ns = job.time(job.inputs, (calls *= 2));
        job.calls = Math.max(4, Math.round((calls * ROUND_NS) / ns));
        job.time(job.inputs, job.calls);
      }
      for (let r = 0; r < ROUNDS; r++) {
        for (let k = 0; k < jobs.length; k++) {
          const job = jobs[(r + k) % jobs.length];
          job.samples.push(job.time(job.inputs, job.calls) / job.calls);
        }
      }
      const perCall = Object.fromEntries(jobs.map((job) => [job.impl.id, summary(job.samples).median]));
      const samplesOf = (id) => jobs.find((job) => job.impl.id === id).samples;
      const versus = Object.fromEntries(others.map((id) => [id, ratioSummary(samplesOf(BASE), samplesOf(id))]));
      results.push({
        case: benchCase.id,
        size,
        ns: Object.fromEntries(Object.entries(perCall).map(([id, ns]) => [id, round(ns)])),
        speedOverWsMasking: Object.fromEntries(Object.entries(versus).map(([id, r]) => [id, { median: round(r.median, 3), p25: round(r.p25, 3), p75: round(r.p75, 3) }])),
      });
      const cells = [
        benchCase.id === 'mask' ? `mask (offset ${OUTPUT_OFFSET})` : benchCase.id,
        formatSize(size),
        ...implementations.map((impl) => (perCall[impl.id] < 1000 ? perCall[impl.id].toFixed(1) : perCall[impl.id].toFixed(0))),
        ...others.map((id) => `**${versus[id].median.toFixed(2)}×** (${versus[id].p25.toFixed(2)}–${versus[id].p75.toFixed(2)})`),
      ];
      console.log(`| ${cells.join(' | ')} |`);
    }
  }
  return { machine, results, started };
}

function wsMaskingCommit() {
  try {
    return fs.readFileSync(path.join(WS_MASKING, '.commit'), 'utf8').trim();
  } catch {}
  try {
    return require('child_process').execFileSync('git', ['-C', WS_MASKING, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

function save(report) {
  const partial = QUICK || ONLY_SIZES.length || list('cases').length;
  const file = path.join(__dirname, 'results', `wasm-vs-ws-masking-${runtimeTag}${QUICK ? '-quick' : partial ? '-partial' : ''}.json`);
  writeCompactJson(file, {
    schema: 'bufferutil-simd/wasm-vs-ws-masking@1',
    mode: QUICK ? 'quick' : 'full',
    date: new Date().toISOString(),
    durationSeconds: Math.round((Date.now() - report.started) / 1e3),
    runtime,
    machine: report.machine,
    source: sourceFacts(ROOT),
    wsMasking: { entry: 'wasm-sync.js', commit: wsMaskingCommit() },
    method: {
      processes: report.processes,
      rounds: ROUNDS,
      roundMs: ROUND_NS / 1e6,
      rotation: 8,
      speed: 'ws-masking time ÷ simd-wasm time: median over rounds in a process; with several processes, the median of those (min, max over processes)',
    },
    results: report.results,
  });
  console.log(`\nsaved ${path.relative(ROOT, file)}`);
}

/** `--runs=N`: this script in N processes, each cell summarised over them. */
function repeat() {
  const { execFileSync } = require('child_process');
  const started = Date.now();
  const childArgs = args.filter((arg) => !arg.startsWith('--runs=') && arg !== '--save' && !arg.startsWith('--json-out='));
  const runs = [];
  for (let run = 0; run < RUNS; run++) {
    const file = path.join(os.tmpdir(), `wasm-vs-ws-masking-${process.pid}-${run}.json`);
    console.log(`--- process ${run + 1} of ${RUNS}`);
    execFileSync(process.execPath, [__filename, ...childArgs, `--json-out=${file}`], { stdio: 'inherit' });
    runs.push(JSON.parse(fs.readFileSync(file, 'utf8')));
    fs.unlinkSync(file);
  }
  const median = (values) => summary(values).median;
  const ids = Object.keys(runs[0].results[0].speedOverWsMasking);
  const results = runs[0].results.map((row, i) => {
    const ofRuns = runs.map((r) => r.results[i]);
    const ns = Object.fromEntries(Object.keys(row.ns).map((id) => [id, round(median(ofRuns.map((r) => r.ns[id])))]));
    const speedOverWsMasking = Object.fromEntries(
      ids.map((id) => {
        const speeds = ofRuns.map((r) => r.speedOverWsMasking[id].median);
        return [id, { median: round(median(speeds), 3), min: round(Math.min(...speeds), 3), max: round(Math.max(...speeds), 3), perProcess: speeds }];
      })
    );
    return { case: row.case, size: row.size, ns, speedOverWsMasking };
  });
  const header = ['case', 'size', ...Object.keys(results[0].ns).map((id) => `${id} ns`), ...ids.map((id) => `${id} speed ÷ ws-masking (lowest–highest process)`)];
  console.log(`\n${runtime}; ${runs[0].machine.cpu.model}; median of ${RUNS} processes\n`);
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const row of results) {
    const cells = [
      row.case === 'mask' ? `mask (offset ${OUTPUT_OFFSET})` : row.case,
      formatSize(row.size),
      ...Object.values(row.ns).map((ns) => (ns < 1000 ? ns.toFixed(1) : ns.toFixed(0))),
      ...ids.map((id) => {
        const s = row.speedOverWsMasking[id];
        return `**${s.median.toFixed(2)}×** (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;
      }),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
  if (SAVE) save({ machine: runs[0].machine, results, started, processes: RUNS });
}

if (RUNS > 1) {
  repeat();
} else {
  const report = measureAll();
  if (JSON_OUT) fs.writeFileSync(JSON_OUT, JSON.stringify(report));
  if (SAVE) save({ ...report, processes: 1 });
}
