'use strict';

// `npm run bench:check` (.ci/run; `npm test` tests the package): the dispatch rule and lib/thresholds.js's sizes are
// the scripts' choice over the committed data, the README shows their tables and chart, the command lines refuse the unknown.

const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test } = require('node:test');

// `node benchmark/<file> ...args`: `{ status, stdout, stderr }`.
const run = (file, args) => spawnSync(process.execPath, [path.join(__dirname, file), ...args], { encoding: 'utf8' });

test('the chosen dispatch rule wins over the committed kernel data, and the README shows its table', () => {
  const { load, evaluate, table, CHOSEN } = require('./dispatch');
  const cpus = load();
  assert.ok(cpus.length > 0, 'results/kernel/*.json');
  assert.equal(evaluate(cpus).winner, CHOSEN);
  assert.ok(fs.readFileSync(path.join(__dirname, 'README.md'), 'utf8').includes(table(cpus)), 'npm run bench:dispatch');
});

test("lib/thresholds.js's addon sizes are the ones chosen from the committed runs, and the README shows their table", () => {
  const { load, chooseAll, table } = require('./thresholds');
  const { THRESHOLDS } = require('../lib/thresholds');
  const runs = load();
  const chosen = {};
  for (const { key, operation, chosen: size } of chooseAll(runs)) chosen[key] = { ...chosen[key], [operation]: size };
  assert.deepEqual(chosen, THRESHOLDS.native, 'results/thresholds/*.json');
  assert.ok(fs.readFileSync(path.join(__dirname, 'README.md'), 'utf8').includes(table(runs)), 'npm run bench:thresholds');
});

test('bench.js and e2e.js refuse, before running anything, an unknown option, an option without its value, and sizes no case has', () => {
  for (const [file, args, why] of [
    ['bench.js', ['--frobnicate'], /Unknown option '--frobnicate'.*; the options: .*--json/],
    ['bench.js', ['--json'], /'--json <value>' argument missing/],
    ['e2e.js', ['--views'], /'--views <value>' argument missing/],
    ['e2e.js', ['--sizes=3'], /--sizes=3 leaves no case/],
  ]) {
    const result = run(file, args);
    assert.equal(result.status, 2, `${file} ${args}: ${result.stdout}${result.stderr}`);
    assert.match(result.stderr, why);
  }
});

test("bench.js --from --svg redraws the README's chart from the committed runs byte for byte", (t) => {
  const results = path.join(__dirname, 'results');
  // The README's command: its runs in its order, its note.
  const runs = ['node-22', 'node-24', 'node-26', 'bun'].map((name) => path.join(results, `bench-${name}.json`));
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-chart-')), 'chart.svg');
  t.after(() => fs.rmSync(path.dirname(out), { recursive: true, force: true }));
  const result = run('bench.js', [`--from=${runs.join(',')}`, `--svg=${out}`, '--note=Zen 4, AVX-512, 2 vCPUs shared']);
  assert.equal(result.status, 0, result.stderr);
  const svg = fs.readFileSync(out, 'utf8');
  assert.equal(svg, fs.readFileSync(path.join(results, 'speedup.svg'), 'utf8'), 'results/speedup.svg (README, "The chart")');
});
