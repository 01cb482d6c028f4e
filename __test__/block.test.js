'use strict';

// The block: a Float64Array over a SharedArrayBuffer holding offset, length and key word, which `maskBlock`
// and `unmaskBlock` read instead of arguments; and `level`. The entries' refusals: the hostile matrix.

const { test } = require('node:test');
const assert = require('node:assert');
const { runJSON } = require('./helpers/child');

const { file: ADDON } = require('../lib/tiers/native');
/** `script`'s JSON from a child in which `addon` is a load of the addon file of its own. */
const withAddon = (script, options) => runJSON(`const addon = require(${JSON.stringify(ADDON)});${script}`, options);

test("level chooses an environment's level on its first call, capped by name in any case, and keeps it", () => {
  const script = (first) => `
    process.stdout.write(JSON.stringify([addon.level(${JSON.stringify(first)}), addon.level(''), addon.level('avx512')]));`;
  assert.deepStrictEqual(withAddon(script('SCALAR')), ['scalar', 'scalar', 'scalar']);
  const [best] = withAddon(script(undefined));
  assert.deepStrictEqual(withAddon(script('no such level')), [best, best, best]);
  // A masking call before any level() runs at the widest level, and leaves the choice to level().
  const maskFirst = `
    const buffer = new Uint8Array(64);
    addon.unmask(buffer, 0x01010101);
    process.stdout.write(JSON.stringify([addon.level('scalar'), buffer.every((b) => b === 1)]));`;
  assert.deepStrictEqual(withAddon(maskFirst), ['scalar', true]);
});

test('useBlock adopts the first Float64Array over a SharedArrayBuffer offered in an environment, and nothing else', () => {
  const script = `
    // Without a block, maskBlock and unmaskBlock refuse every call and write nothing; so do mask and unmask
    // given what is no number where one goes (the hostile matrix gives them only numbers).
    const buffer = new Uint8Array(64).fill(5);
    const unadopted = [
      () => addon.maskBlock(buffer, buffer), () => addon.unmaskBlock(buffer), () => addon.mask(buffer, buffer, '0', 4, 0),
      () => addon.unmask(buffer, '1'), () => addon.unmask(buffer, undefined),
    ].map((call) => {
      try { call(); return 'no throw'; } catch (error) { return error.message; }
    });
    const refused = [
      new Float64Array(4), new Float64Array(new ArrayBuffer(32)), new Float64Array(new SharedArrayBuffer(16)),
      new Float32Array(new SharedArrayBuffer(32)), new DataView(new SharedArrayBuffer(32)), new SharedArrayBuffer(32),
      new Float64Array(new ArrayBuffer(32, { maxByteLength: 64 })), [0, 0, 0, 0], undefined,
    ].map((value) => addon.useBlock(value));
    const first = addon.useBlock(new Float64Array(new SharedArrayBuffer(32)));
    const again = [addon.useBlock(new Float64Array(new SharedArrayBuffer(32))), addon.useBlock(new Float64Array(new SharedArrayBuffer(64)))];
    // index.js, which loads the addon afresh and adopts a block of its own, is right beside it.
    const index = require('.');
    const source = Buffer.alloc(300, 7), output = Buffer.alloc(306);
    index.mask(source, Buffer.from([1, 2, 3, 4]), output, 6, 300);
    const right = output.every((b, i) => b === (i < 6 ? 0 : 7 ^ (((i - 6) & 3) + 1)));
    process.stdout.write(JSON.stringify({ unadopted, untouched: buffer.every((b) => b === 5), refused, first, again, right }));`;
  assert.deepStrictEqual(withAddon(script), {
    unadopted: Array(5).fill('bufferutil-simd: the addon refused these arguments (call it through the package)'),
    untouched: true,
    refused: [false, false, false, false, false, false, false, false, false],
    first: true,
    again: [false, false],
    right: true,
  });
});

test('without a SharedArrayBuffer the package passes the numbers as arguments, at the same level, as the byte loop', () => {
  // lib/tiers/native.js's other path: with no block to offer, `mask` and `unmask` take every number.
  const script = `
    delete globalThis.SharedArrayBuffer;
    const index = require('.');
    const { runDifferential } = require('./__test__/helpers/differential');
    const calls = Object.values(runDifferential(index, { count: 20000, seed: 12 })).reduce((a, b) => a + b, 0);
    process.stdout.write(JSON.stringify({ shared: typeof SharedArrayBuffer, backend: index.backend, calls }));`;
  assert.deepStrictEqual(runJSON(script), { shared: 'undefined', backend: require('..').backend, calls: 20000 });
});

test('a block shared out of a worker that then exits stays valid memory, and cannot be detached', () => {
  // Workers adopt blocks and hand them to the main thread, which writes them while allocating after the
  // workers are gone: a block the addon owned and freed with its environment would corrupt the heap here.
  const script = `
    const { Worker } = require('node:worker_threads');
    const index = require('.');
    const source = \`
      const { parentPort } = require('node:worker_threads');
      // Interpolated by the child, inside its template literal: a Windows path keeps its backslashes.
      const addon = require(\${JSON.stringify(${JSON.stringify(ADDON)})});
      const block = new Float64Array(new SharedArrayBuffer(32));
      if (addon.useBlock(block) !== true) throw new Error('the block was not adopted');
      Object.assign(block, [1, 2, 3, 4]);
      let detachable = false;
      try { structuredClone(block.buffer, { transfer: [block.buffer] }); detachable = true; } catch {}
      parentPort.postMessage({ shared: block.buffer, detachable });\`;
    (async () => {
      const received = [];
      let detachable = 0;
      for (let round = 0; round < 8; round++) {
        const worker = new Worker(source, { eval: true });
        // Both listened for from the start: 'exit' may come in the same turn as the message.
        const exited = new Promise((resolve) => worker.once('exit', resolve));
        const message = await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
        received.push(message.shared);
        if (message.detachable) detachable++;
        await exited;
      }
      let garbage = [];
      let bad = 0;
      for (let n = 0; n < 20000; n++) {
        garbage.push(Buffer.alloc(64 + (n % 700)));
        if (garbage.length > 500) garbage = [];
        for (const buffer of received) {
          const view = new Float64Array(buffer);
          if (n === 0 && view[0] !== 1) bad++;
          view[0] = n; view[1] = n * 2; view[2] = -n; view[3] = n;
        }
        const data = Buffer.alloc(200, n & 255), output = Buffer.alloc(206);
        index.mask(data, Buffer.from([9, 8, 7, 6]), output, 6, 200);
        if (output[6] !== ((n & 255) ^ 9)) bad++;
      }
      process.stdout.write(JSON.stringify({ bad, blocks: received.length, detachable }));
    })();`;
  assert.deepStrictEqual(runJSON(script), { bad: 0, blocks: 8, detachable: 0 });
});

test("the addon holds an adopted block's SharedArrayBuffer until its environment ends", () => {
  // With nothing else holding it, the memory the addon reads between calls must not be collected: a
  // WeakRef to the adopted buffer survives collections that clear one to a buffer offered and refused.
  const script = `
    let adopted = new Float64Array(new SharedArrayBuffer(32));
    let refused = new Float64Array(new ArrayBuffer(32));
    const took = [addon.useBlock(adopted), addon.useBlock(refused)];
    const [held, control] = [new WeakRef(adopted.buffer), new WeakRef(refused.buffer)];
    adopted = refused = undefined;
    (async () => {
      // A WeakRef is cleared only after the job that read it: a turn between collections.
      for (let i = 0; i < 20 && control.deref() !== undefined; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        globalThis.gc();
      }
      const buffer = held.deref();
      let right = false;
      if (buffer !== undefined) {
        // The addon reads the numbers from that very memory.
        const block = new Float64Array(buffer);
        const source = new Uint8Array(40).fill(3), output = new Uint8Array(48);
        Object.assign(block, [8, 40, 0x01010101]);
        addon.maskBlock(source, output);
        right = output.subarray(8).every((b) => b === 2) && output.subarray(0, 8).every((b) => b === 0);
      }
      process.stdout.write(JSON.stringify({ took, controlCollected: control.deref() === undefined, held: buffer !== undefined, right }));
    })();`;
  const expected = { took: [true, false], controlCollected: true, held: true, right: true };
  assert.deepStrictEqual(withAddon(script, { args: ['--expose-gc'] }), expected);
});

test('another thread rewriting the block during calls gets writes inside the views only', () => {
  // docs/safety.md: code that reaches the block can have another thread rewrite it mid-call. Whatever the
  // addon reads there is checked once, as read: guard bytes around the output view never change.
  const script = `
    const { Worker } = require('node:worker_threads');
    const block = new Float64Array(new SharedArrayBuffer(32));
    addon.useBlock(block);
    // [0]: the worker is writing; [1]: stop.
    const flags = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker(\`
      const { workerData: { buffer, flags } } = require('node:worker_threads');
      const block = new Float64Array(buffer);
      const values = [0, 1, 8, 512, 1024, 1025, 2047, 3000, 4096, 2 ** 31, 2 ** 32 + 8, 2 ** 53, -1, -0, 0.5, NaN, Infinity];
      let n = 1;
      Atomics.store(flags, 0, 1);
      while (Atomics.load(flags, 1) === 0) {
        n = (n * 1103515245 + 12345) >>> 0;
        block[n % 3] = n & 64 ? values[n % values.length] : n % 4096;
      }\`, { eval: true, workerData: { buffer: block.buffer, flags } });
    // Emulated CPUs start a worker slowly: the calls begin once it writes.
    while (Atomics.load(flags, 0) === 0) Atomics.wait(flags, 0, 0, 10);
    const memory = new Uint8Array(4096).fill(0xab);
    const output = new Uint8Array(memory.buffer, 1024, 1024);
    const source = new Uint8Array(1024).fill(0x55);
    let [calls, refused] = [0, 0];
    // At least 400 ms, and until the race has given both refused and taken calls (at most 60 s).
    const [until, deadline] = [Date.now() + 400, Date.now() + 60_000];
    while (Date.now() < deadline && (Date.now() < until || refused === 0 || refused === calls)) {
      for (let i = 0; i < 200; i++, calls++) {
        try {
          if (i & 1) addon.unmaskBlock(output);
          else { block[0] = i & 15; block[1] = 1000; block[2] = 0x01020304; addon.maskBlock(source, output); }
        } catch { refused++; }
      }
    }
    Atomics.store(flags, 1, 1);
    worker.terminate().then(() => {
      const guards = [...memory.subarray(0, 1024), ...memory.subarray(2048)].every((b) => b === 0xab);
      process.stdout.write(JSON.stringify({ guards, calls: calls > 1000, both: refused > 0 && refused < calls }));
    });`;
  assert.deepStrictEqual(withAddon(script), { guards: true, calls: true, both: true });
});

test('index.js hands its block to no user code, and another load of the addon choosing a level leaves it at its own', () => {
  const script = `
    const seen = [];
    Object.defineProperty(Float64Array, Symbol.hasInstance, { value(value) { seen.push(value); return true; } });
    const index = require('.');
    const native = require('./lib/tiers/native');
    const before = [index.backend, native.level()];
    const other = require(${JSON.stringify(ADDON)}).level('scalar');
    const source = Uint8Array.from({ length: 300 }, (_, i) => i & 255);
    const output = new Uint8Array(400);
    index.mask(source, new Uint8Array([1, 2, 3, 4]), output, 50, 200);
    const right = output.every((b, i) => b === (i < 50 || i >= 250 ? 0 : (i - 50) ^ (((i - 50) & 3) + 1)));
    process.stdout.write(JSON.stringify({ handed: seen.length, right, before, other, after: [index.backend, native.level()] }));`;
  const { before, after, ...result } = runJSON(script);
  assert.deepStrictEqual(result, { handed: 0, right: true, other: 'scalar' });
  assert.deepStrictEqual(after, before);
  assert.notEqual(before[1], 'scalar', 'this CPU has a SIMD level');
});
