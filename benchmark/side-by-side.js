'use strict';

// `npm run bench:side-by-side`: this checkout's index.js against another build of the package (`--before`,
// for a change's before and after), bufferutil 4.1.0 and, where the runtime has it, Node's
// http.websocketMask, in one process: each at its own call site (benchmark/lib/timing.js), one per operation
// for every size, warmed up over mixed sizes, inputs rotating over 8 buffers and keys, interleaved rounds,
// medians of per-round ratios. Prints a table of ratios.
//
//   node benchmark/side-by-side.js [--before=DIR] [--sizes=48,128,1024] [--rounds=21] [--batch-ms=2] [--quick]
//                                  [--guarded-core]
//
// DIR is another checkout of this repo with its addon built (`git worktree add DIR REV && cd DIR &&
// npm install`). Without it, only bufferutil and core are compared. --guarded-core adds core behind the
// per-call proof a safe hand-over to it would need (benchmark/lib/guarded-core.js).

const crypto = require('node:crypto');
const path = require('node:path');
const { makeTimer, summary, ratioSummary, ROTATION } = require('./lib/timing');

const ROOT = path.resolve(__dirname, '..');
const option = (name, fallback) => {
  const found = process.argv.find((arg) => arg.startsWith(`--${name}=`));
  return found === undefined ? fallback : found.slice(name.length + 3);
};
const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const SIZES = option('sizes', '16,48,64,128,256,1024,4096,16384,65536,1048576').split(',').map(Number);
const ROUNDS = Number(option('rounds', QUICK ? 3 : 21));
const BATCH_NS = Number(option('batch-ms', QUICK ? 0.2 : 2)) * 1e6;
const BEFORE = option('before', undefined);
const GUARDED_CORE = process.argv.includes('--guarded-core');
const OFFSET = 6;

function implementations() {
  const list = [{ id: 'now', lib: require(ROOT) }];
  if (BEFORE !== undefined) list.push({ id: 'before', lib: require(path.resolve(BEFORE)) });
  list.push({ id: 'bufferutil', lib: require(require.resolve('bufferutil', { paths: [ROOT] })) });
  const http = require('node:http');
  if (typeof http.websocketMask === 'function') {
    list.push({ id: 'core', lib: { mask: http.websocketMask, unmask: http.websocketUnmask } });
    if (GUARDED_CORE) list.push({ id: 'core+guard', lib: require('./lib/guarded-core').guardedCore(http) });
  }
  return list;
}

/** Rotating inputs for one case: 8 sources, outputs and keys (4-byte Buffers, as ws and WebSocket-Node pass). */
function inputs(operation, size) {
  const sources = Array.from({ length: ROTATION }, () => crypto.randomBytes(size));
  const keys = Array.from({ length: ROTATION }, () => crypto.randomBytes(4));
  const inPlace = operation !== 'mask';
  const outputs = inPlace ? sources : Array.from({ length: ROTATION }, () => Buffer.alloc(size + OFFSET));
  return { sources, keys, outputs, offset: inPlace ? 0 : OFFSET, length: size };
}

/** Calls per batch so that one batch takes about BATCH_NS. */
function calibrate(timer, input) {
  let calls = 64;
  for (;;) {
    const ns = timer(input, calls);
    if (ns >= BATCH_NS / 4 || calls >= 1 << 24) return Math.max(ROTATION, Math.round((calls * BATCH_NS) / Math.max(ns, 1)));
    calls *= 4;
  }
}

function main() {
  const libs = implementations();
  const [runtime, version] = typeof Bun !== 'undefined' ? ['bun', Bun.version] : ['node', process.versions.node];
  const cpu = require('node:os').cpus()[0]?.model ?? 'unknown CPU';
  console.log(`${runtime} ${version}, ${cpu}, ${require('node:os').cpus().length} CPUs; ${ROUNDS} rounds of ~${BATCH_NS / 1e6} ms per cell`);
  console.log(`implementations: ${libs.map(({ id, lib }) => `${id}${lib.backend ? ` (${lib.backend})` : ''}`).join(', ')}\n`);
  const others = libs.filter(({ id }) => id !== 'now').map(({ id }) => id);
  const header = ['op', 'size', 'now ns', ...others.map((id) => `${id} ns`), ...others.map((id) => `now÷${id}`)];
  const rows = [header];
  const cells = [];
  for (const operation of ['mask', 'mask-in-place', 'unmask']) {
    const kind = operation === 'unmask' ? 'unmask' : 'mask';
    // One timed loop per implementation and operation, as a caller has one call site for every size.
    const loops = libs.map(({ id, lib }) => ({ id, timer: makeTimer(kind, `${id}_${operation}`, kind === 'mask' ? lib.mask : lib.unmask) }));
    for (const size of SIZES) cells.push({ operation, size, input: inputs(operation, size), loops });
  }
  // Warm-up over mixed sizes first, so that what the JIT makes of each loop is what mixed traffic gets.
  for (let pass = 0; pass < (QUICK ? 1 : 3); pass++) {
    for (const { size, input, loops } of cells) {
      for (const { timer } of loops) timer(input, Math.max(8, Math.floor(200_000 / (size + 64))));
    }
  }
  for (const { operation, size, input, loops } of cells) {
    const timers = loops.map(({ id, timer }) => ({ id, timer, calls: calibrate(timer, input), perCall: [] }));
    for (let round = 0; round < ROUNDS; round++) {
      // Interleaved, and the order rotates, so drift and warm-up fall on every implementation alike.
      for (let k = 0; k < timers.length; k++) {
        const t = timers[(round + k) % timers.length];
        t.perCall.push(t.timer(input, t.calls) / t.calls);
      }
    }
    const medians = timers.map((t) => summary(t.perCall).median);
    const ratios = timers.slice(1).map((t) => ratioSummary(t.perCall, timers[0].perCall).median);
    rows.push([operation, size, ...medians.map((ns) => ns.toFixed(1)), ...ratios.map((r) => r.toFixed(2))]);
  }
  const widths = header.map((_, c) => Math.max(...rows.map((row) => String(row[c]).length)));
  for (const row of rows) console.log(row.map((cell, c) => String(cell).padStart(widths[c])).join('  '));
  console.log('\nnow÷X is the median over rounds of X\'s time ÷ this checkout\'s time: above 1, this checkout is faster.');
}

main();
