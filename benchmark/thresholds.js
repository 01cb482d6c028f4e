'use strict';

// `npm run bench:thresholds`: the addon's short-payload sizes (lib/thresholds.js) chosen from the committed runs of
// `bench.js --impl=loop,native,bufferutil --baseline=bufferutil` (results/thresholds/*.json, README "Short-payload
// thresholds"). A size T runs the JavaScript loop below T and the addon from T; a cell is then that side's speed ÷
// bufferutil 4.1.0's. Per runtime and operation the chosen T has the highest worst cell over every CPU, run, op and
// size; T within TIED of it count as level, and of those the smallest wins: the addon's cost follows bufferutil's on
// every CPU (both are Node-API calls), the loop's does not. Prints the markdown table benchmark/README.md includes.

const fs = require('node:fs');
const path = require('node:path');
const { formatSize, markdown } = require('./lib/common');

const RESULTS = path.join(__dirname, 'results', 'thresholds');
const TIED = 0.03; // what one run resolves (README, "Method")
// lib/thresholds.js's operations and the ops under each: the addon runs a mask in place from 0 as an unmask.
const OPERATIONS = { mask: ['mask'], unmask: ['unmask', 'mask-in-place'] };

/** lib/thresholds.js's key for a run's runtime, as it picks its own: Bun, Deno, Node 20 and older, Node. */
const keyOf = (runtime) =>
  /^(Bun|Deno) /.test(runtime)
    ? runtime.split(' ')[0].toLowerCase()
    : Number(/^Node v(\d+)/.exec(runtime)?.[1]) <= 20
      ? 'node20'
      : 'node';

/** The committed runs, grouped by lib/thresholds.js's key. */
function load() {
  const runs = {};
  for (const file of fs.readdirSync(RESULTS).filter((name) => name.endsWith('.json'))) {
    const run = JSON.parse(fs.readFileSync(path.join(RESULTS, file), 'utf8'));
    runs[keyOf(run.runtime)] = [...(runs[keyOf(run.runtime)] ?? []), run];
  }
  return runs;
}

/** Per candidate size `from` of `runs` under `ops`, its worst cell `{ ratio, side, size, where }`; and the chosen size. */
function choose(runs, ops) {
  const cells = runs.flatMap((run) =>
    run.cells
      .filter((cell) => ops.includes(cell.op))
      .map(({ op, size, rows }) => {
        const ratio = (id) => rows.find((row) => row.id === id).ratios.bufferutil.median;
        return { size, loop: ratio('loop'), native: ratio('native'), where: `${run.cpu.split(',')[0]}, ${run.runtime}, ${op}` };
      })
  );
  const rows = [...new Set(cells.map((cell) => cell.size))].map((from) => {
    const sided = cells.map((cell) => ({ ...cell, side: cell.size < from ? 'loop' : 'native' }));
    const ratios = sided.map((cell) => ({ ...cell, ratio: cell[cell.side] }));
    const mean = Math.exp(ratios.reduce((sum, cell) => sum + Math.log(cell.ratio), 0) / ratios.length);
    return { from, mean, worst: ratios.reduce((a, b) => (b.ratio < a.ratio ? b : a)) };
  });
  const best = Math.max(...rows.map((row) => row.worst.ratio));
  const level = rows.filter((row) => row.worst.ratio >= best - TIED);
  return { rows, chosen: level.reduce((a, b) => (b.mean > a.mean ? b : a)).from };
}

/** Per key and operation: `{ rows, chosen }`. */
const chooseAll = (runs) =>
  Object.fromEntries(
    Object.keys(runs)
      .sort()
      .map((key) => [key, Object.fromEntries(Object.entries(OPERATIONS).map(([op, ops]) => [op, choose(runs[key], ops)]))])
  );

/** The table: a row per key and operation, each candidate size's worst cell (the chosen in bold), where the chosen's is. */
function table(runs) {
  const lines = Object.entries(chooseAll(runs)).flatMap(([key, operations]) =>
    Object.entries(operations).map(([operation, { rows, chosen }]) => {
      const { worst } = rows.find((row) => row.from === chosen);
      const ratios = rows.map(({ from, worst: { ratio } }) => (from === chosen ? `**${ratio.toFixed(2)}**` : ratio.toFixed(2)));
      return [key, operation, ...ratios, `${worst.side} at ${formatSize(worst.size)}, ${worst.where}`];
    })
  );
  const sizes = Object.values(chooseAll(runs))[0].mask.rows.map((row) => formatSize(row.from));
  return markdown(
    ['runtime', 'operation', ...sizes, "the chosen size's worst cell"],
    (i) => i > 1 && i < sizes.length + 2,
    lines
  );
}

if (require.main === module) console.log(table(load()));

module.exports = { load, chooseAll, table };
