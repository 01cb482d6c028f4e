'use strict';

// benchmark/dispatch.js over the committed kernel data: the rule the kernel runs is the one that loses least,
// and benchmark/README.md shows the table as the script prints it.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const BENCHMARK = path.join(__dirname, '..', 'benchmark');

test('the chosen dispatch rule wins over the committed kernel data, and the README shows its table', {
  skip: !fs.existsSync(path.join(BENCHMARK, 'dispatch.js')) && 'no benchmark/dispatch.js here (the installed layout)',
}, () => {
  const { load, evaluate, table, CHOSEN } = require('../benchmark/dispatch');
  const cpus = load();
  assert.ok(cpus.length > 0, 'benchmark/results/kernel/*.json');
  assert.equal(evaluate(cpus).winner, CHOSEN);
  assert.ok(fs.readFileSync(path.join(BENCHMARK, 'README.md'), 'utf8').includes(table(cpus)), 'npm run bench:dispatch');
});
