'use strict';

// What the benchmark scripts share: the command line, child processes, figures as text, the machine, the committed results.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { cpuInfo } = require('../../lib/cpu');

const args = process.argv.slice(2);

/** Says `message` (an Error: with its stack) on stderr and exits with `code` (2: a usage error). */
const fail = (message, code = 1) => {
  console.error(message);
  process.exit(code);
};

/** The command line: `--name=value` options of `names` and `--quick` (or BENCH_QUICK=1: tiny budgets, never speed). Exits 2
 * before anything runs on anything else or a value missing or out of range: a misspelt flag would compare something else. */
function parse(names) {
  const options = { ...Object.fromEntries(names.map((name) => [name, { type: 'string' }])), quick: { type: 'boolean' } };
  let values;
  try {
    ({ values } = parseArgs({ args, options }));
  } catch (error) {
    fail(`${error.message}; the options: --${Object.keys(options).join(' --')}`, 2);
  }
  const option = (name, fallback) => values[name] ?? fallback;
  const list = (name, fallback) => option(name, fallback).split(',').filter(Boolean);
  const refuse = (name, wanted) => fail(`--${name} must be ${wanted}; got ${option(name)}`, 2);
  const positive = (name, fallback, integer = false) => {
    const value = Number(option(name, fallback));
    const ok = value > 0 && (!integer || Number.isInteger(value));
    return ok ? value : refuse(name, `a positive ${integer ? 'integer' : 'number'}`);
  };
  const oneOf = (name, choices) =>
    choices.includes(option(name, choices[0])) ? option(name, choices[0]) : refuse(name, `one of ${choices}`);
  const all = (name, choices) => list(name, choices.join()).every((item) => choices.includes(item));
  const listOf = (name, choices) => (all(name, choices) ? list(name, choices.join()) : refuse(name, `a list of ${choices}`));
  const quick = values.quick === true || /^(1|true)$/i.test(process.env.BENCH_QUICK || '');
  return { option, list, quick, positive, oneOf, listOf };
}

function bytes(text) {
  const [, n, unit] = /^(\d+)([km]?)$/i.exec(text) || [];
  if (n === undefined) fail(`${text} is not a size in bytes (16, 1k, 1m)`, 2);
  return Number(n) * { '': 1, k: 1024, m: 2 ** 20 }[unit.toLowerCase()];
}

const formatSpread = ({ median: m, min, max }, unit = '', [open, close] = '()') =>
  `${m.toFixed(2)}${unit} ${open}${min.toFixed(2)}–${max.toFixed(2)}${close}`;

const formatSize = (n) => (n >= 2 ** 20 ? `${n / 2 ** 20} MiB` : n >= 1024 ? `${n / 1024} KiB` : `${n} B`);
const formatNs = (ns) =>
  ns >= 1e6 ? `${(ns / 1e6).toPrecision(3)} ms` : ns >= 1e3 ? `${(ns / 1e3).toPrecision(3)} µs` : `${ns.toPrecision(3)} ns`;

const runtime = globalThis.Bun ? `Bun ${Bun.version}` : globalThis.Deno ? `Deno ${Deno.version.deno}` : `Node ${process.version}`;

function cpu() {
  const { name, flags } = cpuInfo();
  const simd = process.arch === 'arm64' ? 'neon' : ['avx512bw', 'avx2', 'sse2'].find((flag) => flags?.has(flag)) || '?';
  return `${name}, ${simd}, ${os.cpus().length} logical CPUs`;
}

/** A markdown table of `head` and `rows` (lists of cells), the columns where `right(i)` aligned right. */
function markdown(head, right, rows) {
  const aligns = head.map((_, i) => (right(i) ? '---:' : '---'));
  return [`| ${head.join(' | ')} |`, `|${aligns.join('|')}|`, ...rows.map((cells) => `| ${cells.join(' | ')} |`)].join('\n');
}

/** In a child process `runChild` started: the task its parent handed it. */
const childTask = process.env.BENCH_CHILD && JSON.parse(process.env.BENCH_CHILD);

/** The JSON on stdout of this script rerun as a child handed `task`, waited for (children side by side would share the cores). */
function runChild(task, { env = process.env, timeout } = {}) {
  const argv = [...process.execArgv, require.main.filename, ...args];
  const options = { env: { ...env, BENCH_CHILD: JSON.stringify(task) }, timeout, maxBuffer: 2 ** 26 };
  const child = spawnSync(process.execPath, argv, { ...options, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (child.status !== 0) fail(`FAILED (${child.status ?? child.signal}): ${JSON.stringify(task)}`);
  return JSON.parse(child.stdout);
}

/** The parsed `*.json` files of `results/<kind>/` (committed runs), in file-name order whatever the file system lists. */
function readResults(kind) {
  const dir = path.join(__dirname, '..', 'results', kind);
  const files = fs.readdirSync(dir).filter((file) => file.endsWith('.json'));
  return files.sort().map((file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')));
}

const machine = () =>
  `${runtime} · ${cpu()} · ${new Date().toISOString().slice(0, 10)} · bufferutil-simd backend ${require('../..').backend}`;

module.exports = { args, parse, fail, bytes, formatSpread };
Object.assign(module.exports, { formatSize, formatNs, markdown, runtime, cpu, machine, childTask, runChild, readResults });
