'use strict';

// Parent side of the hostile matrix: runs every case against an implementation in child processes
// (restarting after a crash, so one abort costs one case, not the run) and labels each outcome.

const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');
const { cases } = require('./hostile-cases');

const RUNNER = path.join(__dirname, 'hostile-runner.js');
// A child that runs past this is reported as a hang: far above a run here, emulated CPUs included.
const CHILD_TIMEOUT_MS = 120_000;
// The codes each error class may carry; which one a case gets is mask.test.js's to check.
const CODES = { TypeError: ['ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_VALUE'], RangeError: ['ERR_OUT_OF_RANGE'] };
// Deno runs a CommonJS script only when told to. Where V8 has immutable ArrayBuffers behind a flag (Node 26),
// the children run with it, so every tier meets them and the immutable cases run.
const RUNTIME_ARGS = process.versions.deno ? ['run', '-A', '--unstable-detect-cjs'] : immutableFlag();

function immutableFlag() {
  const flag = '--js-immutable-arraybuffer';
  const probe = spawnSync(process.execPath, [flag, '-e', 'new ArrayBuffer(1).transferToImmutable()'], { stdio: 'ignore' });
  return probe.status === 0 ? [flag] : [];
}

/** Runs one child from case `first` on, filling `results`; resolves with the last case started and, if it died, how. */
function runChild(implementation, first, results) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...RUNTIME_ARGS, RUNNER, implementation, String(first)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let started = -1;
    let pending = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop();
      for (const line of lines) {
        const [, event, index, json] = /^(start|done) (\d+) ?(.*)$/.exec(line) ?? [];
        if (event === 'start') started = Number(index);
        else if (event === 'done') results[index] = JSON.parse(json);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-2000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const died = started >= 0 && results[started] === undefined;
      resolve({ started, death: died ? { code, signal, stderr, timedOut: signal === 'SIGKILL' } : null });
    });
  });
}

/** Every case's result for `implementation` ('native', 'fallback', 'wasm', 'wasm-every-size', 'index', 'bufferutil'). */
async function runMatrix(implementation) {
  const results = new Array(cases.length);
  for (let first = 0; first < cases.length; ) {
    const { started, death } = await runChild(implementation, first, results);
    if (started < 0) throw new Error(`${implementation}: the runner produced nothing`);
    if (death === null) break;
    results[started] = { death };
    first = started + 1;
  }
  return results;
}

/** The argument an error message names: its first double-quoted word. */
const namedArgument = (message) => /"([^"]+)"/.exec(message)?.[1];

/** A short label for a result: 'ok', 'TypeError:source', 'user', or what went wrong. */
function label(result) {
  if (result === undefined) return 'NO RESULT';
  if (result.death) {
    const { code, signal, timedOut, stderr } = result.death;
    if (timedOut) return 'HANG (killed)';
    const why = /Assertion `[^']*' failed/.exec(stderr)?.[0] ?? /FATAL ERROR[^\n]*/.exec(stderr)?.[0] ?? '';
    return `CRASH ${signal ?? `exit ${code}`}${why ? ` (${why})` : ''}`;
  }
  const { outcome, wrong, written } = result;
  if (outcome.kind === 'n/a' || outcome.kind === 'skip') return outcome.kind;
  const { constructor: type, code, message = '' } = outcome;
  const named = namedArgument(message);
  let text = `${type} code=${code}: ${message.slice(0, 48)}`;
  if (outcome.kind === 'ok') text = 'ok';
  else if (type === 'Error' && message.startsWith('hostile')) text = 'user';
  else if (type === 'Error' && code === undefined && message.startsWith('bufferutil-simd: the addon refused')) text = 'Refused';
  else if (type === 'TypeError' && code === 'ERR_INVALID_ARG_VALUE' && /immutable/.test(message)) text = `Immutable:${named}`;
  else if (CODES[type]?.includes(code) && named) text = `${type}:${named}`;
  if (wrong > 0) text += outcome.kind === 'ok' ? ` +${wrong} WRONG BYTES` : ` +WROTE ${written} B`;
  return text;
}

/** Whether `result` is among the outcomes case `index` accepts, with every byte as it should be. */
function accepted(index, result) {
  const text = label(result);
  return cases[index].accepts.includes(text) || (text === 'n/a' && cases[index].fn.startsWith('addon.'));
}

/** A plain-text table; `rows` are arrays of cells, the first row the header. */
function table(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => String(row[column]).length)));
  const line = (row) => `| ${row.map((cell, column) => String(cell).padEnd(widths[column])).join(' | ')} |`;
  return [line(rows[0]), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

module.exports = { accepted, cases, label, runMatrix, table };
