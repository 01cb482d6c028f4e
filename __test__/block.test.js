'use strict';

// The block entries (`takeBlock`, `maskBlock`, `unmaskBlock`): index.js writes offset, length and key word
// into addon-owned memory instead of passing them. Whatever is in the block is checked as arguments are,
// the block is handed out once per bind() call, and each bind (each worker) has its own.

const { test } = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { Worker } = require('node:worker_threads');

const root = path.join(__dirname, '..');
const binding = require(path.join(root, 'lib', 'native.js'));
const addon = Object.values(require.cache).find((m) => m.id.endsWith('.node') && typeof m.exports.bind === 'function').exports;
const reference = (source, key, length) => Uint8Array.from({ length }, (_, i) => source[i] ^ key[i & 3]);
const word = (key) => key[0] | (key[1] << 8) | (key[2] << 16) | (key[3] << 24);

test('takeBlock hands out one view per bind(), then undefined', () => {
  const bound = addon.bind('');
  const block = bound.takeBlock();
  assert.ok(block instanceof Float64Array && block.length === 4);
  assert.strictEqual(bound.takeBlock(), undefined);
  // index.js took the one of the binding it loaded.
  require(root);
  assert.strictEqual(binding.takeBlock(), undefined);
});

test('maskBlock / unmaskBlock mask with what the block holds, as mask / unmask would', () => {
  const bound = addon.bind('');
  const block = bound.takeBlock();
  const key = [0x6d, 0xb6, 0xb2, 0x80];
  for (const length of [0, 1, 7, 64, 129, 4099]) {
    const source = Uint8Array.from({ length }, (_, i) => (i * 31) & 255);
    const output = new Uint8Array(length + 9).fill(0xee);
    Object.assign(block, [6, length, word(key)]);
    bound.maskBlock(source, output);
    assert.deepStrictEqual(output.subarray(6, 6 + length), reference(source, key, length));
    assert.ok(output.subarray(0, 6).every((b) => b === 0xee) && output.subarray(6 + length).every((b) => b === 0xee));
    const inPlace = source.slice();
    block[2] = word(key) >>> 0; // unsigned words are keys too
    bound.unmaskBlock(inPlace);
    assert.deepStrictEqual(inPlace, reference(source, key, length));
  }
});

test('every value read from the block is checked, and nothing is written when one is bad', () => {
  const bound = addon.bind('');
  const block = bound.takeBlock();
  const source = new Uint8Array(100).fill(1);
  const output = new Uint8Array(120).fill(2);
  const cases = [
    [[10, 101, 0], 'RangeError', 'length'],
    [[21, 100, 0], 'RangeError', 'offset'],
    [[-1, 100, 0], 'RangeError', 'offset'],
    [[0.5, 100, 0], 'RangeError', 'offset'],
    [[10, NaN, 0], 'RangeError', 'length'],
    [[10, 2 ** 53, 0], 'RangeError', 'length'],
    [[10, 2 ** 32 + 50, 0], 'RangeError', 'length'],
    [[10, 100, 2 ** 32], 'RangeError', 'mask'],
    [[10, 100, 1.5], 'RangeError', 'mask'],
    [[10, 100, Infinity], 'RangeError', 'mask'],
  ];
  for (const [values, kind, name] of cases) {
    Object.assign(block, values);
    assert.throws(() => bound.maskBlock(source, output), (error) => error.name === kind && error.message.includes(`"${name}"`), `${values}`);
    assert.ok(output.every((b) => b === 2) && source.every((b) => b === 1), `wrote on ${values}`);
  }
  Object.assign(block, [10, 100, 1.5]);
  assert.throws(() => bound.unmaskBlock(source), { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
  Object.assign(block, [0, 4, 0]);
  for (const notView of [undefined, {}, [1, 2, 3, 4], new ArrayBuffer(8), { length: 1e9 }]) {
    assert.throws(() => bound.maskBlock(notView, output), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => bound.maskBlock(source, notView), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => bound.unmaskBlock(notView), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  }
  assert.ok(output.every((b) => b === 2) && source.every((b) => b === 1));
});

test('transferring the block away changes nothing the addon reads (its memory is the addon’s)', () => {
  const bound = addon.bind('');
  const block = bound.takeBlock();
  Object.assign(block, [0, 8, 0x04030201]);
  try {
    // Node keeps external memory from being detached (the transfer copies); either way the addon reads
    // its own memory, which lives while it is referenced.
    structuredClone(block.buffer, { transfer: [block.buffer] });
  } catch {}
  const buffer = new Uint8Array(8);
  bound.unmaskBlock(buffer); // the key written before: 01 02 03 04
  assert.deepStrictEqual([...buffer], [1, 2, 3, 4, 1, 2, 3, 4]);
});

test('each worker has its own block', async () => {
  const source = `
    const { parentPort } = require('node:worker_threads');
    const index = require(${JSON.stringify(root)});
    const key = Buffer.from([9, 8, 7, 6]);
    let bad = 0;
    for (let n = 0; n < 20000; n++) {
      const length = 64 + (n % 300);
      const data = Buffer.alloc(length, n & 255);
      const output = Buffer.alloc(length + 6);
      index.mask(data, key, output, 6, length);
      for (let i = 0; i < length; i++) if (output[6 + i] !== (data[i] ^ key[i & 3])) bad++;
    }
    parentPort.postMessage(bad);`;
  const results = await Promise.all(
    Array.from({ length: 4 }, () => new Promise((resolve, reject) => {
      const worker = new Worker(source, { eval: true });
      worker.once('message', resolve);
      worker.once('error', reject);
    })),
  );
  assert.deepStrictEqual(results, [0, 0, 0, 0]);
});
