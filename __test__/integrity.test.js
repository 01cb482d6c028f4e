'use strict';

// What a call may write, watched from another thread that keeps storing into the bytes it must not touch and
// reading them back: a write there, even of the value already in place, shows.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const { NAMES, ROOT, load } = require('./helpers/implementations');
const { immutableArgs, runJSON } = require('./helpers/child');

const SIZE = 256;
const VIEW_AT = 64;
const VIEW_LENGTH = 128;
const IMMUTABLE = isMainThread && immutableArgs().length > 0;

if (!isMainThread) {
  const { memory, flags, watched } = workerData;
  const bytes = new Uint8Array(memory);
  let round = 0;
  let changed = 0;
  Atomics.store(flags, 1, 1);
  while (Atomics.load(flags, 0) === 0) {
    round = (round + 1) & 255;
    for (const index of watched) Atomics.store(bytes, index, round);
    for (const index of watched) if (Atomics.load(bytes, index) !== round) changed++;
  }
  parentPort.postMessage({ changed, rounds: round });
} else {
  /** Runs `calls` while a watcher guards the bytes of `memory` at `watched`, and fails if it saw any change. */
  async function watch(memory, watched, calls) {
    const flags = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker(__filename, { workerData: { memory, flags, watched } });
    let ended; // a worker that fails or exits before it watches ends the wait, not the test run
    const report = new Promise((resolve, reject) => {
      worker.on('message', resolve);
      worker.on('error', (error) => reject((ended = error)));
      worker.on('exit', (code) => reject((ended ??= new Error(`the watcher exited (${code}) before it reported`))));
    });
    while (Atomics.load(flags, 1) === 0) {
      if (ended) throw ended;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const deadline = Date.now() + 400;
    let done = 0;
    while (Date.now() < deadline) {
      calls();
      done++;
    }
    Atomics.store(flags, 0, 1);
    const { changed } = await report;
    await worker.terminate();
    assert.ok(done > 0);
    assert.equal(changed, 0, `${changed} watched bytes changed in ${done} rounds of calls`);
  }

  const KEY = Uint8Array.of(0x3c, 0xa5, 0x0f, 0x96);
  const range = (from, to) => Array.from({ length: to - from }, (_, i) => from + i);
  const attempt = (call) => {
    try {
      call();
    } catch {}
  };

  /** What the package hands out: every value two levels of own data properties down from its own modules' exports, and where. */
  function reachable(root) {
    const found = new Map();
    const visit = (value, where, depth) => {
      if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
      if (!found.has(value)) found.set(value, where);
      if (depth === 0) return;
      for (const key of Object.getOwnPropertyNames(value)) {
        const descriptor = Object.getOwnPropertyDescriptor(value, key);
        if ('value' in descriptor) visit(descriptor.value, `${where}.${key}`, depth - 1);
      }
    };
    for (const { filename, exports } of Object.values(require.cache)) {
      // The package's own modules: under its folder (itself installed in a node_modules, maybe), not the suite's.
      const own = filename.startsWith(root) ? filename.slice(root.length) : undefined;
      if (own !== undefined && !/node_modules|__test__/.test(own)) visit(exports, own, 2);
    }
    return found;
  }

  test('nothing the package hands out is the addon itself: no module or export reaches its entries', () => {
    const index = require('..');
    const native = require('../lib/tiers/native');
    assert.equal(typeof native.file, 'string');
    const addons = Object.keys(require.cache).filter((file) => file.startsWith(ROOT) && file.endsWith('.node'));
    assert.deepEqual(addons, [], 'no addon file stays in require.cache');
    const found = reachable(ROOT);
    assert.ok(found.has(index.mask));
    const entries = [...found].filter(([value]) => typeof value.level === 'function' && typeof value.interface === 'number');
    assert.deepEqual(entries, []);
  });

  test('no function the package hands out writes into an immutable buffer, whatever it is called with', {
    skip: !IMMUTABLE && 'this V8 has no immutable ArrayBuffers',
  }, () => {
    // Every function reachable from this package's cached modules (two levels down), called in every
    // argument order a masking entry has: a view and a key word, or views, numbers and a word.
    const script = `
      const ROOT = ${JSON.stringify(ROOT)};
      require(ROOT);
      require(ROOT + '/portable.js');
      const immutable = (n) => { const b = new ArrayBuffer(n); new Uint8Array(b).fill(7); return b.transferToImmutable(); };
      ${reachable}
      const functions = [...reachable(ROOT)].filter(([value]) => typeof value === 'function');
      const wrote = [];
      const key = Uint8Array.of(1, 2, 3, 4);
      for (const [fn, where] of functions) {
        for (const size of [16, 300, 5000]) {
          const buffer = immutable(size);
          const view = new Uint8Array(buffer);
          const source = new Uint8Array(size).fill(9);
          for (const args of [[view, 0x01020304], [view, key], [source, view, 0, size, 0x01020304], [source, key, view, 0, size], [view, view, 0, size, 0x01020304]]) {
            try { fn(...args); } catch {}
            try { fn.call(undefined, ...args); } catch {}
          }
          if (!new Uint8Array(buffer).every((b) => b === 7)) wrote.push(where + ' ' + size);
        }
      }
      process.stdout.write(JSON.stringify({ count: functions.length, wrote }));`;
    const { count, wrote } = runJSON(script, { args: immutableArgs() });
    assert.ok(count > 5, `reached ${count} functions`);
    assert.deepEqual(wrote, []);
  });

  for (const name of NAMES) {
    const impl = load(name);

    test(`${name}: a call writes only its range; zero-length and refused calls, nothing: watched from another thread`, async () => {
      const memory = new SharedArrayBuffer(SIZE);
      const output = new Uint8Array(memory, VIEW_AT, VIEW_LENGTH);
      const empty = new Uint8Array(memory, VIEW_AT + 8, 0);
      const source = new Uint8Array(VIEW_LENGTH);
      const short = source.subarray(0, 16);
      // Refused: the source shorter than `length`, `offset + length` past the output, bad numbers and keys.
      const refused = [
        [short, KEY, output, 0, 17],
        [short, KEY, output, VIEW_LENGTH - 4, 8],
        [short, KEY, output, 2, -1],
        [short, KEY, output, 1.5, 4],
        [short, KEY, output, 3, 0.5],
        [short, KEY, output, -2, 4],
        [short, KEY, output, 0, 2 ** 53],
        [short, KEY.subarray(0, 3), output, 0, 4],
        [short, [1, 2, 3, 256], output, 0, 4],
      ];
      const nothing = () => {
        for (const offset of [0, 1, 6, 64, VIEW_LENGTH - 1]) impl.mask(short, KEY, output, offset, 0);
        impl.mask(output, KEY, output, 0, 0);
        impl.unmask(empty, KEY);
        impl.mask(empty, KEY, empty, 0, 0);
        for (const args of refused) attempt(() => impl.mask(...args));
        attempt(() => impl.unmask(output, KEY.subarray(0, 2)));
        attempt(() => impl.unmask(output, [1, 2, 3]));
      };
      const [offset, length] = [6, 40];
      const inRange = () => {
        impl.mask(source, KEY, output, offset, length);
        impl.mask(source, [1, 2, 3, 4], output, offset, length);
        impl.unmask(output.subarray(offset, offset + length), KEY);
      };
      const outside = [...range(0, VIEW_AT + offset), ...range(VIEW_AT + offset + length, SIZE)];
      await watch(memory, range(0, SIZE), nothing);
      await watch(memory, outside, inRange);
    });
  }
}
