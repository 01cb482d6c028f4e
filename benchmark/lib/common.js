'use strict';

// What bench.js and e2e.js share: their options, medians and spreads, sizes and times as text, the machine.

const fs = require('node:fs');
const os = require('node:os');

const args = process.argv.slice(2);
/** `--name=value`'s value, or `fallback`. */
const option = (name, fallback) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const list = (name, fallback) => option(name, fallback).split(',').filter(Boolean);
/** `--quick` or BENCH_QUICK=1: tiny budgets that prove every path correct and wired, never speed. */
const QUICK = args.includes('--quick') || /^(1|true)$/i.test(process.env.BENCH_QUICK || '');

/** Says `message` (an Error: with its stack) on stderr and exits with `code` (2: a usage error). */
const fail = (message, code = 1) => {
  console.error(message);
  process.exit(code);
};

/** `--name=`'s value as a positive number (`integer`: a positive integer); exits on anything else. */
function positive(name, fallback, integer = false) {
  const text = option(name, String(fallback));
  const value = Number(text);
  if (value > 0 && (!integer || Number.isInteger(value))) return value;
  fail(`--${name} must be a positive ${integer ? 'integer' : 'number'}; got ${text}`, 2);
}

/** `--name=`'s value, one of `values` (the first by default); exits on anything else. */
function oneOf(name, values) {
  const value = option(name, values[0]);
  return values.includes(value) ? value : fail(`--${name} must be one of ${values.join(', ')}; got ${value}`, 2);
}

/** Exits (2) on an argument but `--name=…` of `names`, `--flag` of `flags` and `--quick`: a typo compares nothing. */
function allow(names, flags = []) {
  const options = [...names.map((name) => `--${name}=`), ...[...flags, 'quick'].map((flag) => `--${flag}`)];
  const known = (arg) => options.some((option) => (option.endsWith('=') ? arg.startsWith(option) : arg === option));
  const bad = args.find((arg) => !known(arg));
  if (bad !== undefined) fail(`unknown option ${bad}; the options: ${options.join(' ')}`, 2);
}

/** `--name=`'s comma list, each item one of `values` (by default all of them); exits on anything else. */
function listOf(name, values, fallback = values.join()) {
  const bad = list(name, fallback).find((item) => !values.includes(item));
  return bad === undefined ? list(name, fallback) : fail(`--${name} takes ${values.join(', ')}; got ${bad}`, 2);
}

/** A size in bytes from `16`, `1k` or `1m` (`--sizes`, and sysfs's `32768K`); exits on anything else. */
function bytes(text) {
  const [, n, unit] = /^(\d+)([km]?)$/i.exec(text) || [];
  if (n === undefined) fail(`${text} is not a size in bytes (16, 1k, 1m)`, 2);
  return Number(n) * { '': 1, k: 1024, m: 2 ** 20 }[unit.toLowerCase()];
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const spread = (values) => ({ median: median(values), min: Math.min(...values), max: Math.max(...values) });
/** A spread as `median (min–max)`, `unit` after the median and `brackets` around the range. */
const formatSpread = ({ median: m, min, max }, unit = '', [open, close] = '()') =>
  `${m.toFixed(2)}${unit} ${open}${min.toFixed(2)}–${max.toFixed(2)}${close}`;

const formatSize = (n) => (n >= 2 ** 20 ? `${n / 2 ** 20} MiB` : n >= 1024 ? `${n / 1024} KiB` : `${n} B`);
const formatNs = (ns) =>
  ns >= 1e6 ? `${(ns / 1e6).toPrecision(3)} ms` : ns >= 1e3 ? `${(ns / 1e3).toPrecision(3)} µs` : `${ns.toPrecision(3)} ns`;

const runtime = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.version}`;

/** The CPU as /proc/cpuinfo names it (with family and model: a VM may say only "AMD EPYC"), and its widest SIMD. */
function cpu() {
  const info = fs.existsSync('/proc/cpuinfo') ? fs.readFileSync('/proc/cpuinfo', 'utf8') : '';
  const field = (name) => info.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm'))?.[1];
  const flags = (field('flags') || '').split(' ');
  const simd = ['avx512bw', 'avx2', 'sse2'].find((flag) => flags.includes(flag)) || (field('Features') ? 'neon' : '?');
  const family = field('cpu family') ? `, family ${field('cpu family')} model ${field('model')}` : '';
  return `${field('model name') || os.cpus()[0]?.model || 'unknown CPU'}${family}, ${simd}, ${os.cpus().length} logical CPUs`;
}

/** A markdown table of `head` and `rows` (lists of cells), the columns where `right(i)` aligned right. */
function markdown(head, right, rows) {
  const aligns = head.map((_, i) => (right(i) ? '---:' : '---'));
  return [`| ${head.join(' | ')} |`, `|${aligns.join('|')}|`, ...rows.map((cells) => `| ${cells.join(' | ')} |`)].join('\n');
}

/** `impl`'s mask and unmask (called unbound), counting the bytes each handles in `counts`. */
function counting({ mask, unmask }) {
  const counts = { mask: 0, unmask: 0 };
  return {
    counts,
    mask(source, key, output, offset, length) {
      counts.mask += length;
      mask(source, key, output, offset, length);
    },
    unmask(buffer, key) {
      counts.unmask += buffer.length;
      unmask(buffer, key);
    },
  };
}

/** The first line of a report: runtime, CPU and date. */
const machine = () => `${runtime} · ${cpu()} · ${new Date().toISOString().slice(0, 10)}`;

module.exports = { args, option, list, QUICK, fail, positive, oneOf, allow, listOf, bytes, median, spread, formatSpread };
Object.assign(module.exports, { formatSize, formatNs, markdown, runtime, cpu, machine, counting });
