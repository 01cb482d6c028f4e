'use strict';

// `npm run bench:thresholds`: lib/thresholds.js's addon sizes from the committed runs (results/thresholds/*.json): per runtime
// and operation, of the sizes T (loop below, addon from it) whose worst cell ÷ bufferutil is within TIED of the highest, the
// one with the highest geometric mean. Prints the table benchmark/README.md includes.

const { nativeKey } = require('../lib/thresholds');
const { formatSize, markdown, readResults } = require('./lib/common');

const TIED = 0.03; // what one run resolves (README, "Method")
// lib/thresholds.js's operations and the ops under each: the addon runs a mask in place from 0 as an unmask.
const OPERATIONS = { mask: ['mask'], unmask: ['unmask', 'mask-in-place'] };

/** The committed runs, grouped by lib/thresholds.js's key for each run's runtime. */
function load() {
  const runs = {};
  for (const run of readResults('thresholds')) {
    const [, name, major] = /^(\w+) v?(\d+)/.exec(run.runtime);
    const key = nativeKey(name.toLowerCase(), Number(major));
    runs[key] = [...(runs[key] ?? []), run];
  }
  return runs;
}

/** Per candidate size `from`, the worst cell `{ ratio, side, size, where }` of `runs` under `ops`; and the chosen. */
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
    const ratios = cells.map((cell) => ({ ...cell, side: cell.size < from ? 'loop' : 'native' }));
    for (const cell of ratios) cell.ratio = cell[cell.side];
    const mean = Math.exp(ratios.reduce((sum, cell) => sum + Math.log(cell.ratio), 0) / ratios.length);
    return { from, mean, worst: ratios.reduce((a, b) => (b.ratio < a.ratio ? b : a)) };
  });
  const best = Math.max(...rows.map((row) => row.worst.ratio));
  const level = rows.filter((row) => row.worst.ratio >= best - TIED);
  return { rows, chosen: level.reduce((a, b) => (b.mean > a.mean ? b : a)).from };
}

/** A row per key, in order, and operation: `{ key, operation, rows, chosen }`. */
const chooseAll = (runs) =>
  Object.keys(runs)
    .sort()
    .flatMap((key) => Object.entries(OPERATIONS).map(([operation, ops]) => ({ key, operation, ...choose(runs[key], ops) })));

/** A row per key and operation: each candidate size's worst cell (the chosen in bold), and where the chosen's is. */
function table(runs) {
  const chosen = chooseAll(runs);
  const lines = chosen.map(({ key, operation, rows, chosen: at }) => {
    const { worst } = rows.find((row) => row.from === at);
    const ratios = rows.map(({ from, worst: { ratio } }) => (from === at ? `**${ratio.toFixed(2)}**` : ratio.toFixed(2)));
    return [key, operation, ...ratios, `${worst.side} at ${formatSize(worst.size)}, ${worst.where}`];
  });
  const head = ['runtime', 'operation', ...chosen[0].rows.map((row) => formatSize(row.from)), "the chosen size's worst cell"];
  return markdown(head, (i) => i > 1 && i < head.length - 1, lines);
}

if (require.main === module) console.log(table(load()));

module.exports = { load, chooseAll, table };
