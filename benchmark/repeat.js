'use strict';

// bench.js in several processes, one after another, summarised. One process is not enough: whether a JS
// path gets optimised one way or another is decided once per process (a 48 B JS mask measured 54 ns in
// one process and 80 ns in the next here), and 41 rounds inside a process cannot see that. Each cell of
// the summary is the median, over the processes, of that process's median per-round ratio, with the
// lowest and highest beside it.
//
//   node benchmark/repeat.js [--runs=3] [--runtime=PATH] [--save] [bench.js options, e.g. --sizes=48,64]
//
// --runtime: the node or bun binary to run bench.js with (default: this one). --save: write the summary
// to benchmark/results/repeat-<runtime>.md as well as printing it. Per-process JSON goes to
// target/bench-repeat/.

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const argv = process.argv.slice(2);
const option = (name) => (argv.find((arg) => arg.startsWith(`--${name}=`)) || '').slice(name.length + 3);
const RUNS = Number(option('runs')) || 3;
const RUNTIME = option('runtime') || process.execPath;
const SAVE = argv.includes('--save');
const passOn = argv.filter((arg) => !/^--(runs|runtime|out)=/.test(arg) && arg !== '--save');
const WORK = path.join(ROOT, 'target', 'bench-repeat');

/** The ratio columns of the summary: bufferutil-simd (index.js) against bufferutil, per case and view. */
const COLUMNS = [
  ['direct', 'mask', 'mask (offset 6)'],
  ['direct', 'mask-in-place', 'mask in place'],
  ['direct', 'unmask', 'unmask'],
  ['ws', 'mask', 'mask through ws'],
  ['ws', 'unmask', 'unmask through ws'],
];

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function sizeName(bytes) {
  if (bytes >= 1 << 20) return `${bytes / (1 << 20)} MiB`;
  if (bytes >= 1024) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}

function runOnce(index) {
  const out = path.join(WORK, String(index));
  fs.rmSync(out, { recursive: true, force: true });
  execFileSync(RUNTIME, [path.join(__dirname, 'bench.js'), `--out=${out}`, ...passOn], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const [file] = fs.readdirSync(out).filter((name) => name.endsWith('.json') && !name.endsWith('.samples.json'));
  return JSON.parse(fs.readFileSync(path.join(out, file), 'utf8'));
}

function summarise(reports) {
  const first = reports[0];
  const sizes = [...new Set(first.results.map((result) => result.size))].sort((a, b) => a - b);
  const ratio = (report, view, caseId, size) =>
    report.results.find((r) => r.view === view && r.case === caseId && r.size === size && r.impl === 'simd')?.vsBufferutil?.median;
  const lines = [
    `bufferutil-simd (index.js, ${first.bufferutilSimd.backend}) ÷ bufferutil ${first.versions.bufferutil}, speed ratio (above 1 is faster): ` +
      `median over ${reports.length} processes of each process's median per-round ratio, [lowest–highest process].`,
    `${first.runtime}, ${first.machine.cpu.model}, ${first.machine.cpu.logicalCores} threads, ${first.date.slice(0, 10)}; ` +
      `\`node benchmark/repeat.js --runs=${reports.length}${passOn.map((arg) => ` ${arg}`).join('')}\`.`,
    '',
    `| size | ${COLUMNS.map(([, , title]) => title).join(' | ')} |`,
    `|---:|${COLUMNS.map(() => '---').join('|')}|`,
  ];
  for (const size of sizes) {
    const cells = COLUMNS.map(([view, caseId]) => {
      const values = reports.map((report) => ratio(report, view, caseId, size)).filter((value) => value !== undefined);
      if (values.length === 0) return '';
      return `${median(values).toFixed(2)} [${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}]`;
    });
    lines.push(`| ${sizeName(size)} | ${cells.join(' | ')} |`);
  }
  return { tag: first.runtime.split(' ')[0] === 'bun' ? 'bun' : `node${first.runtime.split('v')[1].split('.')[0]}`, text: `${lines.join('\n')}\n` };
}

const reports = [];
for (let index = 0; index < RUNS; index++) {
  process.stderr.write(`run ${index + 1} of ${RUNS}…\n`);
  reports.push(runOnce(index));
}
const { tag, text } = summarise(reports);
process.stdout.write(text);
if (SAVE) {
  const file = path.join(__dirname, 'results', `repeat-${tag}.md`);
  fs.writeFileSync(file, text);
  process.stderr.write(`wrote ${path.relative(ROOT, file)}\n`);
}
