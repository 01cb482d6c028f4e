'use strict';

// Child process of the hostile matrix: `node hostile-runner.js IMPLEMENTATION FIRST_CASE`. Runs the cases
// from FIRST_CASE on, one line per event on stdout ("start I", then "done I JSON"), written synchronously
// so that whatever kills the process (an abort, a segfault) leaves the parent knowing which case did it.

const { writeSync } = require('node:fs');
const { cases, Context, skipReason } = require('./hostile-cases');
const reference = require('./reference');

const { ROOT, load, rawAddon } = require('./implementations');

/** The registry's implementations, the native one with the addon's own entries; and bufferutil, for comparison. */
function implementationNamed(name) {
  if (name === 'bufferutil') return require(require.resolve('bufferutil', { paths: [ROOT] }));
  return name === 'native' ? withAddonEntries() : load(name);
}

// The oracle, and "nothing written" (the key read, running its getters as every implementation does), under
// every name the cases call: the addon's entries take `(source, word, output, offset, length)` or `(buffer, word)`.
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

/**
 * The native tier, with the addon's own entries from the runner's own load of its file (the package hands
 * them to no one): `addon.mask` / `addon.unmask` with the numbers as arguments, the block entries with them
 * in a block the addon adopts.
 */
function withAddonEntries() {
  const native = load('native');
  const addon = rawAddon();
  const block = new Float64Array(new SharedArrayBuffer(32));
  if (addon.useBlock(block) !== true) throw new Error('hostile-runner: the addon did not adopt the block');
  return {
    ...native,
    'addon.mask': (source, word, output, offset, length) => addon.mask(source, output, offset, length, word),
    'addon.maskBlock'(source, word, output, offset, length) {
      block.set([offset, length, word]);
      addon.maskBlock(source, output);
    },
    'addon.unmask': (buffer, word) => addon.unmask(buffer, word),
    'addon.unmaskBlock'(buffer, word) {
      block[2] = word;
      addon.unmaskBlock(buffer);
    },
  };
}

/** Builds case `index`, calls `implementation` on it, and returns the outcome and every tracked byte. */
function execute(index, implementation) {
  const context = new Context(index + 1);
  const { args, after } = cases[index].build(context);
  let outcome;
  try {
    implementation[cases[index].fn](...args);
    outcome = { kind: 'ok' };
  } catch (error) {
    outcome = describeError(error);
  }
  if (typeof after === 'function') after();
  const bytes = context.buffers.map((buffer) =>
    buffer.byteLength === 0 && buffer.detached !== false ? null : new Uint8Array(buffer).slice()
  );
  return { outcome, bytes };
}

function describeError(error) {
  if (error === null || typeof error !== 'object') return { kind: 'throw', constructor: typeof error, message: String(error) };
  return { kind: 'throw', constructor: error.constructor?.name, code: error.code, message: String(error.message) };
}

/** Bytes that differ between two snapshots of the same buffers (a detached-or-not mismatch counts as 1). */
function countDifferences(actual, expected) {
  let count = 0;
  for (const [b, y] of expected.entries()) {
    const x = actual[b];
    if (x === null || y === null) count += Number(x !== y);
    else {
      count += Math.abs(x.length - y.length);
      for (let i = 0; i < Math.min(x.length, y.length); i++) count += Number(x[i] !== y[i]);
    }
  }
  return count;
}

function main() {
  const [name, first = '0'] = process.argv.slice(2);
  const implementation = implementationNamed(name);
  const done = (index, result) => writeSync(1, `done ${index} ${JSON.stringify(result)}\n`);
  for (let index = Number(first); index < cases.length; index++) {
    writeSync(1, `start ${index}\n`);
    const reason = skipReason(index);
    if (reason !== undefined) done(index, { outcome: { kind: 'skip', reason }, wrong: 0, written: 0 });
    else if (typeof implementation[cases[index].fn] !== 'function')
      done(index, { outcome: { kind: 'n/a' }, wrong: 0, written: 0 });
    else {
      const actual = execute(index, implementation);
      // Against the oracle if the call returned, against "nothing written" if it threw; `written` says
      // what a misbehaving implementation changed.
      const untouched = execute(index, readKeyOnly);
      const expected = actual.outcome.kind === 'ok' ? execute(index, oracle) : untouched;
      const wrong = countDifferences(actual.bytes, expected.bytes);
      done(index, { outcome: actual.outcome, wrong, written: countDifferences(actual.bytes, untouched.bytes) });
    }
  }
}

main();
