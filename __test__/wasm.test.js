'use strict';

// The WebAssembly tier beyond the conformance suite (mask.test.js, which also covers its chunk edges) and the
// differential (every alignment through its scratch): the module itself, and which tier loads where.

const assert = require('node:assert');
const crypto = require('node:crypto');
const { describe, it } = require('node:test');

const { assertBytes, masked } = require('./helpers/reference');
const { runJSON, runNode } = require('./helpers/child');

const moduleBytes = Buffer.from(require('../lib/tiers/wasm-module'), 'base64');

describe('the module (the kernel built for wasm32 with simd128)', () => {
  // On a memory of its own, as wasm.js makes it: two pages that cannot grow.
  const memory = new WebAssembly.Memory({ initial: 2, maximum: 2 });
  const module = new WebAssembly.Module(moduleBytes);
  const exports = { memory, ...new WebAssembly.Instance(module, { env: { memory } }).exports };
  const heap = new Uint8Array(exports.memory.buffer);
  const scratch = exports.scratch_address();
  const scratchBytes = exports.scratch_bytes();

  it('imports only its memory and exports its scratch and one kernel entry', () => {
    assert.deepStrictEqual(WebAssembly.Module.imports(module), [{ module: 'env', name: 'memory', kind: 'memory' }]);
    const functions = WebAssembly.Module.exports(module).flatMap(({ kind, name }) => (kind === 'function' ? [name] : []));
    assert.deepStrictEqual(functions, ['scratch_address', 'scratch_bytes', 'xor_scratch']);
    // Linked for exactly two pages: a memory of another size does not fit.
    const memoryOf = (initial, maximum = initial) => new WebAssembly.Memory({ initial, maximum });
    for (const memory of [memoryOf(1), memoryOf(3), memoryOf(2, 3)]) {
      assert.throws(() => new WebAssembly.Instance(module, { env: { memory } }));
    }
    assert.strictEqual(scratch % 4096, 0, 'page-aligned: wasm.js places chunks by address mod 4096');
    assert.ok(scratch + scratchBytes <= heap.length, 'the scratch lies inside the memory');
    assert.strictEqual(scratchBytes, 2048 + 64 * 1024);
    assert.throws(() => exports.memory.grow(1), RangeError, 'the memory cannot grow, so no view of it detaches');
  });

  it('XORs every length 0..300 × start 0..63 × key rotation, and the whole scratch, as the byte loop, nothing else', () => {
    const baseKey = [0x48, 0x2a, 0xce, 0x24];
    const window = 300 + 64 + 64;
    for (let length = 0; length <= 300; length++) {
      for (let at = 0; at < 64; at++) {
        for (let rotation = 0; rotation < 4; rotation++) {
          const key = baseKey.map((_, i) => baseKey[(i + rotation) & 3]);
          const word = key[0] | (key[1] << 8) | (key[2] << 16) | (key[3] << 24);
          const before = crypto.randomBytes(window);
          heap.set(before, scratch);
          const expected = masked(before.subarray(at, at + length), key, before, at, length);
          assert.strictEqual(exports.xor_scratch(at, length, word), length);
          assertBytes(heap.subarray(scratch, scratch + window), expected, `length ${length} at ${at} rotation ${rotation}`);
        }
      }
    }
    const before = crypto.randomBytes(scratchBytes);
    heap.set(before, scratch);
    const key = [1, 2, 3, 4];
    assert.strictEqual(exports.xor_scratch(0, scratchBytes, 0x04030201), scratchBytes);
    assertBytes(heap.subarray(scratch, scratch + scratchBytes), masked(before, key), 'whole scratch');
  });

  it('refuses any range outside the scratch without writing', () => {
    const all = Buffer.from(heap);
    for (const [at, length] of [
      [0, scratchBytes + 1],
      [1, scratchBytes],
      [scratchBytes, 1],
      [scratchBytes + 1, 0],
      [scratchBytes - 3, 4],
      [-1, 4], // 2^32 - 1 as the module's usize
      [4, -1],
      [-16, 32], // would wrap around to 16 if added unchecked
    ]) {
      assert.strictEqual(exports.xor_scratch(at, length, 0x04030201), 0, `at ${at} length ${length}`);
    }
    assertBytes(Buffer.from(heap), all, 'nothing written');
  });
});

it('refuses a chunk size the scratch cannot take', () => {
  for (const chunk of [0, 6, -4, 64 * 1024 + 4, 1.5])
    assert.throws(() => require('../lib/tiers/wasm-kernel').wasmKernel(chunk), RangeError);
});

// Node's flags (--no-addons, --jitless); Bun and Deno are covered by scripts/test-runtimes.js.
const onNode = !process.versions.bun && !process.versions.deno;

describe('which tier loads', { skip: !onNode && 'Node flags' }, () => {
  const backend = (args, prelude = '') =>
    runNode(`${prelude}process.stdout.write(require('.').backend)`, { args, env: { BUFFERUTIL_SIMD_LEVEL: '' } });

  it('WebAssembly where addons are off (the ES module entry too); JavaScript without WebAssembly or without SIMD in it', () => {
    const esm =
      "import('./portable.mjs').then((m) => process.stdout.write(`${m.backend} ${m.default.backend} ${Object.keys(m.default)}`))";
    assert.strictEqual(runNode(esm, { args: ['--no-addons'] }), 'wasm wasm mask,unmask,backend');
    // --jitless turns WebAssembly off altogether.
    assert.strictEqual(backend(['--no-addons', '--jitless']), 'js');
    assert.strictEqual(backend(['--no-addons'], 'delete globalThis.WebAssembly;'), 'js');
    // An engine without simd128 rejects the module: validate says so before anything compiles.
    assert.strictEqual(backend(['--no-addons'], 'WebAssembly.validate = () => false;'), 'js');
    // Without Buffer (a browser bundle): the module decodes with atob alone.
    assert.strictEqual(backend(['--no-addons'], 'delete globalThis.Buffer;'), 'wasm');
    // Where the engine cannot reserve the memory (a capped address space), the tier does not load.
    assert.strictEqual(backend(['--no-addons'], 'WebAssembly.Memory = function () { throw new RangeError(); };'), 'js');
  });

  it('compiles the module on first use, and falls back to the byte loop for good if that fails', () => {
    const script = `
      // Patched before load: the tier captures WebAssembly.Instance when it loads (a later patch cannot reach it).
      let instantiated = 0;
      WebAssembly.Instance = function () { instantiated++; throw new RangeError('no'); };
      const wasm = require('./__test__/helpers/implementations.js').load('wasm');
      const before = instantiated;
      const source = Uint8Array.from({ length: 70000 }, (_, i) => i * 7);
      const expected = require('./__test__/helpers/reference.js').masked(source, [1, 2, 3, 4]);
      const output = new Uint8Array(70006);
      wasm.mask(source, [1, 2, 3, 4], output, 6, 70000);
      wasm.unmask(source, new Uint8Array([1, 2, 3, 4]));
      const right = output.subarray(6).every((byte, i) => byte === expected[i]) && source.every((byte, i) => byte === expected[i]);
      process.stdout.write(JSON.stringify({ before, after: instantiated, right, backend: wasm.backend }));`;
    assert.deepStrictEqual(runJSON(script), { before: 0, after: 1, right: true, backend: 'wasm' });
  });
});
