'use strict';

// `npm run bench:dispatch`: the candidate dispatch rules over the committed kernel data (results/kernel/*.json). Per CPU
// and rule the worst cell, the rule's speed ÷ the best plain level's in a case and size; the winner's worst cell across
// CPUs is the highest, a tie going to the next-worst CPU. Prints the table benchmark/README.md includes.

const { formatSize, markdown, readResults } = require('./lib/common');

const WIDEST_FIRST = ['avx512', 'avx2', 'sse2', 'neon', 'scalar']; // plain levels: no `+nt` / `-nt`
const AVX2 = WIDEST_FIRST.slice(1);
const CHOSEN = "widest level; streamed outputs (distinct, size ≥ streamFrom) with AVX2's stores";

/** Each rule: its name, and the levels it runs at a case's size, widest first (a case runs the first it has). */
const RULES = [
  ['widest level', () => WIDEST_FIRST],
  ['AVX2 at most (memchr, bytecount)', () => AVX2],
  ...[256, 4096, 65536, 2 ** 20].map((from) => [
    `widest below ${formatSize(from)}, AVX2 from ${formatSize(from)}`,
    (size) => (size < from ? WIDEST_FIRST : AVX2),
  ]),
  [CHOSEN, (size, inPlace, cpu) => (!inPlace && size >= cpu.streamFrom ? AVX2 : WIDEST_FIRST)],
  ["that, and in place from streamFrom with AVX2's vectors", (size, _, cpu) => (size >= cpu.streamFrom ? AVX2 : WIDEST_FIRST)],
];

/** The kernel data of every CPU measured, a column each in file-name order. */
const load = () => readResults('kernel');

/** The worst cell on `cpu` of the rule running `levelsAt`: `{ ratio, best, name, inPlace, size }`. */
function worst(cpu, levelsAt) {
  const cells = cpu.cases.flatMap(({ name, inPlace, sizes, ns }) =>
    sizes.map((size, i) => {
      const best = WIDEST_FIRST.filter((level) => ns[level]).reduce((a, b) => (ns[a][i] <= ns[b][i] ? a : b));
      const runs = levelsAt(size, inPlace, cpu).find((level) => ns[level]);
      return { ratio: ns[best][i] / ns[runs][i], best, name, inPlace, size };
    })
  );
  return cells.reduce((a, b) => (b.ratio < a.ratio ? b : a));
}

/** Every rule's worst cells, one per CPU, and the winner's name: the highest worst cell, then the next-worst. */
function evaluate(cpus) {
  const rows = RULES.map(([name, levelsAt]) => ({ name, worst: cpus.map((cpu) => worst(cpu, levelsAt)) }));
  const ascending = (row) => row.worst.map((cell) => cell.ratio).sort((a, b) => a - b);
  const beats = (x, y) => {
    const i = x.findIndex((ratio, j) => ratio !== y[j]);
    return i >= 0 && x[i] > y[i];
  };
  return { rows, winner: rows.reduce((a, b) => (beats(ascending(b), ascending(a)) ? b : a)).name };
}

/** The table: a row per rule (the winner in bold), a column per CPU, the worst cell. */
function table(cpus) {
  const { rows, winner } = evaluate(cpus);
  const cell = ({ ratio, best, name, inPlace, size }) =>
    `${ratio.toFixed(3)} ${inPlace ? 'in place' : 'distinct'}, ${name.replace(/^(\([^)]*\)|[^,(])*, /, '')}, ${formatSize(size)} (${best} best)`;
  const lines = rows.map((row) => [row.name === winner ? `**${row.name}**` : row.name, ...row.worst.map(cell)]);
  const date = (cpu) => new Date(cpu.epochDay * 864e5).toISOString().slice(0, 10);
  return markdown(['rule', ...cpus.map((cpu) => `${cpu.cpu}, ${date(cpu)}`)], (i) => i > 0, lines);
}

if (require.main === module) console.log(table(load()));

module.exports = { load, evaluate, table, CHOSEN };
