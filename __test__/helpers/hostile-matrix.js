'use strict';

// The hostile matrix, both sides. `runMatrix` runs every case against an implementation in child processes,
// restarting after a crash (one abort costs one case, not the run), and `label` names each outcome. The child,
// `node hostile-runner.js IMPLEMENTATION FIRST_CASE`, runs the cases from FIRST_CASE on, printing "start I" then
// "done I JSON" synchronously, so that whatever kills it (an abort, a segfault) leaves the parent knowing which case did.

const { writeSync } = require('node:fs');
const { cases, Context, skipReason } = require('./hostile-cases');
const { immutableArgs, spawnLines } = require('./child');
const { ROOT, load, rawAddon } = require('./implementations');
const reference = require('./reference');

// The codes each error class may carry; which one a case gets is mask.test.js's to check.
const CODES = { TypeError: ['ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_VALUE'], RangeError: ['ERR_OUT_OF_RANGE'] };

/** Runs one child from case `first` on, filling `results`: the last case started and, if the child died on it, how. */
async function runChild(implementation, first, results) {
  let started = -1;
  // Deno runs a CommonJS script only when told to. Where V8 has immutable ArrayBuffers behind a flag (Node 26), the
  // children run with it, so every tier meets them and the immutable cases run. A hang is killed at spawnLines' timeout.
  const runtime = process.versions.deno ? ['run', '-A', '--unstable-detect-cjs'] : immutableArgs();
  const ended = await spawnLines([...runtime, require.resolve('./hostile-runner'), implementation, String(first)], {
    onLine(line) {
      const [, event, index, json] = /^(start|done) (\d+) ?(.*)$/.exec(line) ?? [];
      if (event === 'start') started = Number(index);
      else if (event === 'done') results[index] = JSON.parse(json);
    },
  });
  const died = started >= 0 && results[started] === undefined;
  return { started, death: died ? { ...ended, stderr: ended.stderr.slice(-2000), timedOut: ended.signal === 'SIGKILL' } : null };
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

/** A short label for a result: 'ok', 'TypeError:source' (the argument its message names first), 'user', or what went wrong. */
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
  const named = /"([^"]+)"/.exec(message)?.[1];
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

// --- The child.

/** An implementation by name, the native one with the addon's own entries; bufferutil, for comparison. The addon's
 * entries come from a load of its own (the package hands them to no one): `addon.mask` / `addon.unmask` with the
 * numbers as arguments, the block entries with them in a block the addon adopts. */
function implementationNamed(name) {
  if (name === 'bufferutil') return require(require.resolve('bufferutil', { paths: [ROOT] }));
  if (name !== 'native') return load(name);
  const addon = rawAddon();
  const block = new Float64Array(new SharedArrayBuffer(32));
  if (addon.useBlock(block) !== true) throw new Error('hostile-matrix: the addon did not adopt the block');
  return {
    ...load('native'),
    'addon.mask': (source, word, output, offset, length) => addon.mask(source, output, offset, length, word),
    'addon.maskBlock': (source, word, output, offset, length) => (
      block.set([offset, length, word]), addon.maskBlock(source, output)
    ),
    'addon.unmask': (buffer, word) => addon.unmask(buffer, word),
    'addon.unmaskBlock': (buffer, word) => ((block[2] = word), addon.unmaskBlock(buffer)),
  };
}

// The oracle, and "nothing written" (the key read, running its getters as every implementation does), under every
// name the cases call: the addon's entries take `(source, word, output, offset, length)` or `(buffer, word)`.
const readKey = (source, key) => {
  try {
    reference.keyOf(key);
  } catch {}
};
const oracle = { ...reference };
const readKeyOnly = { mask: readKey, unmask: readKey };
for (const fn of ['addon.mask', 'addon.maskBlock', 'addon.unmask', 'addon.unmaskBlock']) {
  oracle[fn] = fn.startsWith('addon.mask') ? reference.mask : reference.unmask;
  readKeyOnly[fn] = () => {};
}

/** Builds case `index`, calls `implementation` on it: the outcome, and every tracked byte (null: detached). */
function execute(index, implementation) {
  const context = new Context(index + 1);
  const { args, after } = cases[index].build(context);
  let outcome = { kind: 'ok' };
  try {
    implementation[cases[index].fn](...args);
  } catch (error) {
    const object = error !== null && typeof error === 'object';
    const [type, message] = object ? [error.constructor?.name, error.message] : [typeof error, error];
    outcome = { kind: 'throw', constructor: type, code: object ? error.code : undefined, message: String(message) };
  }
  if (typeof after === 'function') after();
  const bytes = context.buffers.map((buffer) =>
    buffer.byteLength === 0 && buffer.detached !== false ? null : new Uint8Array(buffer).slice()
  );
  return { outcome, bytes };
}

/** Bytes that differ between two snapshots of the same buffers (a detached-or-not mismatch counts as 1). */
function countDifferences(actual, expected) {
  let count = 0;
  for (const [b, y] of expected.entries()) {
    const x = actual[b];
    if (x === null || y === null) count += Number(x !== y);
    else for (let i = 0; i < Math.max(x.length, y.length); i++) count += Number(x[i] !== y[i]);
  }
  return count;
}

/** The child's work. */
function child([name, first = '0']) {
  const implementation = implementationNamed(name);
  const done = (index, result) => writeSync(1, `done ${index} ${JSON.stringify(result)}\n`);
  for (let index = Number(first); index < cases.length; index++) {
    writeSync(1, `start ${index}\n`);
    const reason = skipReason(index);
    if (reason !== undefined) done(index, { outcome: { kind: 'skip', reason }, wrong: 0, written: 0 });
    else if (typeof implementation[cases[index].fn] !== 'function')
      done(index, { outcome: { kind: 'n/a' }, wrong: 0, written: 0 });
    else {
      // Against the oracle if the call returned, against "nothing written" if it threw; `written`: what it changed.
      const actual = execute(index, implementation);
      const untouched = execute(index, readKeyOnly);
      const expected = actual.outcome.kind === 'ok' ? execute(index, oracle) : untouched;
      const wrong = countDifferences(actual.bytes, expected.bytes);
      done(index, { outcome: actual.outcome, wrong, written: countDifferences(actual.bytes, untouched.bytes) });
    }
  }
}

module.exports = { accepted, cases, child, label, runMatrix, table };
