'use strict';

// `npm run bench:wasm`: the WebAssembly tier against fallback.js (the tier it replaces) and the native
// addon, per operation and size, plus its cold start. Runs on Node, Bun and Deno (`deno run -A`).
//
//   node benchmark/wasm.js [--quick] [--sizes=256,16384] [--crossover]
//
// Method (see /work/shared/facts.md, "Benchmark method pitfalls"): each implementation is timed at its own
// call site (a loop compiled separately for it, so no shared feedback), over inputs rotating through
// several buffers and keys; rounds interleave the implementations (order rotating), and every figure is
// the median over rounds of per-round ratios (times, for the ns/call columns). `--crossover` compares the
// JS loop with the module at every size (no threshold) at small sizes, to place the thresholds.

const path = require('path');

const ROOT = path.join(__dirname, '..');
const QUICK = process.argv.includes('--quick');
const CROSSOVER = process.argv.includes('--crossover');
const ONLY = (process.argv.find((arg) => arg.startsWith('--sizes=')) || '').slice(8).split(',').filter(Boolean).map(Number);

const KiB = 1024;
const MiB = 1024 * KiB;
const SIZES = CROSSOVER ? [32, 48, 64, 96, 128, 160, 192, 256, 384, 512, KiB, 2 * KiB] : [256, KiB, 4 * KiB, 16 * KiB, 64 * KiB, MiB];
const OFFSET = 6;
const ROUNDS = QUICK ? 3 : 25;
const ROUND_MS = QUICK ? 1 : 6;
const INPUTS = 8;

const runtime =
  typeof Bun !== 'undefined' ? `bun ${Bun.version}` : typeof Deno !== 'undefined' ? `deno ${Deno.version.deno}` : `node ${process.version}`;
const now = () => performance.now();

function cpuModel() {
  try {
    return /^model name\s*:\s*(.*)$/m.exec(require('fs').readFileSync('/proc/cpuinfo', 'utf8'))[1];
  } catch {
    return require('os').cpus()[0]?.model ?? 'unknown';
  }
}

function loadImplementations() {
  const wasm = require(path.join(ROOT, 'lib', 'wasm.js'));
  const list = [
    { id: 'fallback', ...pick(require(path.join(ROOT, 'lib', 'fallback.js'))) },
    { id: 'wasm', ...pick(wasm) },
  ];
  if (CROSSOVER) list.push({ id: 'wasm-every-size', ...pick(wasm.withOptions({ maskFrom: 0, unmaskFrom: 0 })) });
  try {
    const native = require(path.join(ROOT, 'lib', 'native.js'));
    list.push({ id: `native`, level: native.backend, ...pick(native) });
  } catch {
    // Deno without --allow-ffi, or no addon built: no native column.
  }
  return list;
}

function pick({ mask, unmask }) {
  return { mask, unmask };
}

/** A loop of its own for one implementation and operation: `new Function` gives it its own feedback. */
function compileLoop(op) {
  const body =
    op === 'mask'
      ? 'for (let i = 0; i < count; i++) { const at = i & 7; fn(sources[at], keys[i & 3], outputs[at], offset, size); }'
      : 'for (let i = 0; i < count; i++) fn(sources[i & 7], keys[i & 3]);';
  return new Function('fn', 'sources', 'outputs', 'keys', 'offset', 'size', 'count', body);
}

function randomBytes(size) {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 2654435761) >>> 24;
  return bytes;
}

/** Times `count` calls; returns ns per call. */
function timeBatch(job, count) {
  const start = now();
  job.loop(job.fn, job.sources, job.outputs, job.keys, OFFSET, job.size, count);
  return ((now() - start) * 1e6) / count;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function measure(implementations, op, size) {
  const keys = [0, 1, 2, 3].map((i) => Uint8Array.of(0x6d + i, 0xb6, 0xb2 - i, 0x80 + i));
  const jobs = implementations.map((impl) => ({
    impl,
    fn: impl[op],
    loop: compileLoop(op),
    // Each implementation its own inputs: none of them finds another's bytes in its cache.
    sources: Array.from({ length: INPUTS }, () => randomBytes(size)),
    outputs: Array.from({ length: INPUTS }, () => new Uint8Array(OFFSET + size)),
    keys,
    size,
  }));
  // Warm up and size each batch to about ROUND_MS.
  for (const job of jobs) {
    let count = 8;
    for (let elapsed = 0; elapsed < 2 * ROUND_MS; count *= 2) elapsed = (timeBatch(job, count) * count) / 1e6;
    job.count = Math.max(8, Math.round((ROUND_MS * 1e6) / timeBatch(job, count)));
  }
  const perRound = jobs.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < jobs.length; k++) {
      const index = (round + k) % jobs.length;
      perRound[index].push(timeBatch(jobs[index], jobs[index].count));
    }
  }
  const ns = Object.fromEntries(jobs.map((job, i) => [job.impl.id, perRound[i]]));
  const ratio = (a, b) => median(ns[a].map((t, r) => t / ns[b][r]));
  return { ns, ratio, median: (id) => median(ns[id]) };
}

function formatSize(bytes) {
  return bytes >= MiB ? `${bytes / MiB} MiB` : bytes >= KiB ? `${bytes / KiB} KiB` : `${bytes} B`;
}

/**
 * Cold start, in fresh processes: what `require('./wasm.js')` adds once fallback.js is loaded, and the
 * first call through the module (which compiles and instantiates it), in ms.
 */
function coldStart() {
  const { execFileSync } = require('child_process');
  const script = `
    require(${JSON.stringify(path.join(ROOT, 'lib', 'fallback.js'))});
    let start = performance.now();
    const wasm = require(${JSON.stringify(path.join(ROOT, 'lib', 'wasm.js'))});
    const loaded = performance.now() - start;
    const source = new Uint8Array(4096);
    start = performance.now();
    wasm.mask(source, source.subarray(0, 4), new Uint8Array(4102), 6, 4096);
    process.stdout.write(JSON.stringify([loaded, performance.now() - start]));`;
  const args = typeof Deno !== 'undefined' ? ['eval'] : ['-e'];
  const runs = [];
  for (let i = 0; i < (QUICK ? 3 : 15); i++) runs.push(JSON.parse(execFileSync(process.execPath, [...args, script], { encoding: 'utf8' })));
  const stats = (times) => ({ median: median(times), min: Math.min(...times), max: Math.max(...times) });
  return { require: stats(runs.map((run) => run[0])), firstCall: stats(runs.map((run) => run[1])) };
}

function main() {
  const implementations = loadImplementations();
  const native = implementations.find((impl) => impl.id === 'native');
  console.log(`${runtime}; ${cpuModel()}; native ${native ? native.level : 'not loaded'}; ${ROUNDS} rounds × ~${ROUND_MS} ms`);
  const cold = coldStart();
  const ms = ({ median: m, min, max }) => `median ${m.toFixed(3)} ms (min ${min.toFixed(3)}, max ${max.toFixed(3)})`;
  console.log(`cold start: require('./wasm.js') after fallback.js ${ms(cold.require)}; first 4 KiB mask (instantiates the module) ${ms(cold.firstCall)}\n`);

  const ids = implementations.map((impl) => impl.id);
  const versus = CROSSOVER ? [['fallback', 'wasm-every-size']] : [['fallback', 'wasm'], ...(native ? [['native', 'wasm']] : [])];
  const header = ['op', 'size', ...ids.map((id) => `${id} ns`), ...versus.map(([a, b]) => `${b} ÷ ${a} (speed)`)];
  const rows = [];
  for (const op of ['mask', 'unmask']) {
    for (const size of ONLY.length ? SIZES.filter((s) => ONLY.includes(s)) : SIZES) {
      const result = measure(implementations, op, size);
      const row = [op === 'mask' ? `mask (offset ${OFFSET})` : 'unmask', formatSize(size)];
      for (const id of ids) {
        const ns = result.median(id);
        row.push(`${ns < 1000 ? ns.toFixed(1) : ns.toFixed(0)} (${(size / ns).toFixed(1)} GB/s)`);
      }
      // Speed of b relative to a: a's time over b's, per round.
      for (const [a, b] of versus) row.push(`${result.ratio(a, b).toFixed(2)}×`);
      rows.push(row);
      console.log(`| ${row.join(' | ')} |`);
    }
  }
  console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

main();
