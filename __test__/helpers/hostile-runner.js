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

// The addon's entries take their arguments in one order here, `(source, word, output, offset, length)` and
// `(buffer, word)`; the oracle and "nothing written" under the same names.
const ADDON_ENTRIES = ['addon.mask', 'addon.maskBlock', 'addon.unmask', 'addon.unmaskBlock'];
const oracle = { ...reference };
for (const fn of ADDON_ENTRIES) oracle[fn] = fn.startsWith('addon.mask') ? reference.mask : reference.unmask;

/** Reads the key (running its getters, as every implementation does) and writes nothing. */
const readKeyOnly = {
  mask: (source, key) => tryRun(() => reference.keyOf(key)),
  unmask: (buffer, key) => tryRun(() => reference.keyOf(key)),
};
for (const fn of ADDON_ENTRIES) readKeyOnly[fn] = () => {};

/**
 * The native tier, with the addon's own entries under the names the cases use (see hostile-cases.js):
 * `mask` / `unmask` with the numbers as arguments, `maskBlock` / `unmaskBlock` with them in a block, from a
 * load of the addon file of the runner's own (the package hands its entries to no one), which adopts it.
 */
function withAddonEntries() {
  const native = load('native');
  const addon = rawAddon();
  const block = new Float64Array(new SharedArrayBuffer(32));
  if (addon.useBlock(block) !== true) throw new Error('hostile-runner: the addon did not adopt the block');
  return {
    ...native,
    'addon.mask'(source, word, output, offset, length) {
      addon.mask(source, output, offset, length, word);
    },
    'addon.maskBlock'(source, word, output, offset, length) {
      block[0] = offset;
      block[1] = length;
      block[2] = word;
      addon.maskBlock(source, output);
    },
    'addon.unmask'(buffer, word) {
      addon.unmask(buffer, word);
    },
    'addon.unmaskBlock'(buffer, word) {
      block[2] = word;
      addon.unmaskBlock(buffer);
    },
  };
}

function tryRun(fn) {
  try {
    fn();
  } catch {
    // the outcome of the implementation under test decides; here only the side effects matter
  }
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
  const isObject = error !== null && typeof error === 'object';
  return {
    kind: 'throw',
    constructor: isObject ? error.constructor?.name : typeof error,
    code: isObject ? error.code : undefined,
    message: String(isObject ? error.message : error),
  };
}

/** Bytes that differ between two snapshots of the same buffers (a detached-or-not mismatch counts as 1). */
function countDifferences(actual, expected) {
  let count = 0;
  for (let b = 0; b < expected.length; b++) {
    const [x, y] = [actual[b], expected[b]];
    if (x === null || y === null) {
      if (x !== y) count++;
      continue;
    }
    if (x.length !== y.length) count += Math.abs(x.length - y.length);
    for (let i = 0, n = Math.min(x.length, y.length); i < n; i++) if (x[i] !== y[i]) count++;
  }
  return count;
}

function main() {
  const [name, first = '0'] = process.argv.slice(2);
  const implementation = implementationNamed(name);
  for (let index = Number(first); index < cases.length; index++) {
    writeSync(1, `start ${index}\n`);
    const reason = skipReason(index);
    if (reason !== undefined) {
      writeSync(1, `done ${index} ${JSON.stringify({ outcome: { kind: 'skip', reason }, wrong: 0, written: 0 })}\n`);
      continue;
    }
    if (typeof implementation[cases[index].fn] !== 'function') {
      writeSync(1, `done ${index} ${JSON.stringify({ outcome: { kind: 'n/a' }, wrong: 0, written: 0 })}\n`);
      continue;
    }
    const actual = execute(index, implementation);
    // Against the oracle if the call returned; against "nothing written" if it threw. Also how much it
    // changed compared with not writing at all, to describe what a misbehaving implementation did.
    const untouched = execute(index, readKeyOnly);
    const expected = actual.outcome.kind === 'ok' ? execute(index, oracle) : untouched;
    const result = {
      outcome: actual.outcome,
      wrong: countDifferences(actual.bytes, expected.bytes),
      written: countDifferences(actual.bytes, untouched.bytes),
    };
    writeSync(1, `done ${index} ${JSON.stringify(result)}\n`);
  }
}

main();
