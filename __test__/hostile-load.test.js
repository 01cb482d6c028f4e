'use strict';

// The threat model around load (docs/safety.md), each scenario in a child process. (A stale addon of this
// version: __test__/loader.test.js.)

const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { immutableArgs, runJSON: child, spawnNode } = require('./helpers/child');

// The package, and each kernel routed as the package routes it, by helpers/implementations.js's names.
const TIERS = { index: 'index', native: 'native', wasm: 'wasm', js: 'fallback' };
const helper = (name) => JSON.stringify(path.join(__dirname, 'helpers', name));

// Shared by the children: the tiers, and a reference check of one mask call, every byte of the backing buffers compared.
const PRELUDE = `
  const load = (name) => require(${helper('implementations.js')}).load(name);
  const tiers = () => Object.fromEntries(Object.entries(${JSON.stringify(TIERS)}).map(([name, file]) => [name, load(file)]));
  const reference = require(${helper('reference.js')});
  const KEY = [0x3c, 0xa5, 0x0f, 0x96];
  const pattern = (n, seed) => Uint8Array.from({ length: n }, (_, i) => (i * 29 + seed) & 255);
  /** Masks through \`impl\` into a \`Type\` view at byte 3000 of \`total\` bytes (over the buffer \`outputOver\` makes, the
   * source over \`sourceOver\`'s) and says what happened: 'ok' (right bytes, nothing else changed), or why not. */
  function check(impl, options) {
    const { size, total = 8192, inPlace = false, op = 'mask', Type = Uint8Array, key = Uint8Array.from(KEY) } = options;
    const { outputOver = (bytes) => bytes.buffer, sourceOver = (bytes) => bytes.buffer } = options;
    const view = (buffer, at) =>
      Type === Buffer ? Buffer.from(buffer, at, size) : new Type(buffer, at, size / (Type.BYTES_PER_ELEMENT ?? 1));
    const memory = new Uint8Array(outputOver(pattern(total, 1)));
    const expected = memory.slice();
    const output = view(memory.buffer, 3000);
    const source = inPlace || op === 'unmask' ? output : view(sourceOver(pattern(size + 64, 2)), 32);
    const sourceBytes = source === output ? expected.slice(3000, 3000 + size) : pattern(size + 64, 2).subarray(32, 32 + size);
    let threw = null;
    try {
      if (op === 'unmask') impl.unmask(output, key);
      else impl.mask(source, key, output, 0, size);
    } catch (error) {
      threw = error.constructor.name + ' ' + (error.code ?? error.message);
    }
    if (threw === null) reference.mask(sourceBytes, KEY, expected, 3000, size);
    const differ = (from, to) => memory.subarray(from, to).filter((byte, i) => byte !== expected[from + i]).length;
    const [outside, inside] = [differ(0, 3000) + differ(3000 + size, total), differ(3000, 3000 + size)];
    if (outside) return 'wrote ' + outside + ' bytes outside the view';
    if (inside) return inside + ' wrong bytes inside the view';
    return threw === null ? 'ok' : 'threw ' + threw;
  }
`;

test('registering the addon runs no JavaScript: no global read or written, no async resource', () => {
  // Node holds its addon-loading lock while the addon registers: user code run there (a global's getter, an
  // async_hooks hook) could load an addon and deadlock. Every configurable global becomes an accessor that notes each
  // use and passes it through, and this code names none after; Deno's dlopen reads globals itself, so there only Reflect.
  const result = child(`
    const { file } = require('./lib/tiers/addon').loadAddon();
    const [dlopen, { stdout }, { stringify }, g] = [process.dlopen.bind(process), process, JSON, globalThis];
    const { defineProperty, getOwnPropertyDescriptor } = Object;
    const seen = [];
    let watched = 0;
    for (const name of typeof Deno === 'undefined' ? Reflect.ownKeys(g) : ['Reflect']) {
      const was = getOwnPropertyDescriptor(g, name);
      if (!was.configurable) continue;
      watched++;
      const get = () => (seen.push(name), 'value' in was ? was.value : was.get.call(g));
      defineProperty(g, name, { configurable: true, get, set: () => seen.push(name) });
    }
    const hook = require('node:async_hooks').createHook({ init(id, type) { seen.push('async resource ' + type); } });
    const fresh = { exports: {} };
    seen.length = 0;
    hook.enable();
    dlopen(fresh, file);
    hook.disable();
    const during = seen.slice();
    stdout.write(stringify({ watched: watched > (typeof Deno === 'undefined' ? 50 : 0), seen: during.map(String), mask: typeof fresh.exports.mask }));`);
  assert.deepEqual(result, { watched: true, seen: [], mask: 'function' });
});

test("setters on Object.prototype during the package's load never run, and the addon stays sound", () => {
  const result = child(
    `${PRELUDE}
    const ran = [];
    let reentered = null;
    // Not \`code\`: the runtime's own require() assigns it to the errors of the addon lookups that miss.
    const NAMES = ['interface', 'levels', 'level', 'mask', 'maskBlock', 'unmask', 'unmaskBlock', 'useBlock', 'backend', 'mismatches'];
    for (const name of NAMES) {
      // One that ran for level would call back into the addon from inside its own call.
      const set = function (value) {
        ran.push(name);
        if (name === 'level' && typeof value === 'function') reentered = value('scalar');
        Object.defineProperty(this, name, { value, writable: true, enumerable: true, configurable: true });
      };
      Object.defineProperty(Object.prototype, name, { configurable: true, set });
    }
    const index = load('index');
    for (const name of NAMES) delete Object.prototype[name];
    const spray = Array.from({ length: 20000 }, () => new ArrayBuffer(32));
    const outcomes = [300, 40, 5000].map((size) => check(index, { size })).concat([300, 40].map((size) => check(index, { size, op: 'unmask' })));
    process.stdout.write(JSON.stringify({ ran, reentered: reentered !== null, outcomes, backend: index.backend }));`,
    { env: { BUFFERUTIL_SIMD_LEVEL: 'scalar' } }
  );
  assert.deepEqual(result, { ran: [], reentered: false, outcomes: ['ok', 'ok', 'ok', 'ok', 'ok'], backend: 'scalar' });
});

test('accessors patched before load (descriptors and prototypes) never make the default tier write outside the views', (t) => {
  const result = child(`${PRELUDE}
    const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
    const [realDescriptor, realPrototypeOf] = [Object.getOwnPropertyDescriptor, Object.getPrototypeOf];
    const lie = { length: 4096, byteLength: 4096, byteOffset: -3000 };
    const lying = (get, name) => ({ get() { return get.call(this) + lie[name]; } });
    Object.getOwnPropertyDescriptor = function (object, name) {
      const descriptor = realDescriptor(object, name);
      const lies = (object === TypedArrayPrototype || object === DataView.prototype) && name in lie && descriptor?.get;
      return lies ? { ...descriptor, ...lying(descriptor.get, name) } : descriptor;
    };
    // A prototype whose accessors lie the same way, for code that finds them by Object.getPrototypeOf.
    const fake = Object.create(TypedArrayPrototype);
    for (const name of Object.keys(lie)) Object.defineProperty(fake, name, lying(realDescriptor(TypedArrayPrototype, name).get, name));
    Object.getPrototypeOf = (object) => (object === Uint8Array.prototype ? fake : realPrototypeOf(object));
    const index = load('index');
    Object.getOwnPropertyDescriptor = realDescriptor;
    Object.getPrototypeOf = realPrototypeOf;
    const outcomes = {};
    for (const size of [16, 40, 100, 300, 2000])
      for (const [op, inPlace] of [['mask', false], ['mask', true], ['unmask', true]])
        for (const Type of [Uint8Array, Float32Array, DataView])
          for (const key of [Uint8Array.from(KEY), KEY.slice()]) {
            const name = [op, size, inPlace ? 'in place' : 'apart', Type.name, Array.isArray(key) ? 'array' : 'bytes'];
            outcomes[name.join(' ')] = check(index, { size, inPlace, Type, key, op });
          }
    process.stdout.write(JSON.stringify({ backend: index.backend, outcomes }));`);
  if (['wasm', 'js'].includes(result.backend)) return t.skip(`the default tier is ${result.backend} here, not the addon`);
  const outside = Object.entries(result.outcomes).filter(([, outcome]) => /^wrote/.test(outcome));
  assert.deepEqual(outside, []);
});

// A module of the WebAssembly tier's shape whose xor_scratch does nothing: calls through it would leave bytes unmasked.
// (module (import "env" "memory" (memory 2 2))
//   (func (export "scratch_address") (result i32) i32.const 4096)
//   (func (export "scratch_bytes") (result i32) i32.const 100000)
//   (func (export "xor_scratch") (param i32 i32 i32) (result i32) local.get 1))
const SUBSTITUTE_MODULE =
  'AGFzbQEAAAABDAJgAAF/YAN/f38BfwIQAQNlbnYGbWVtb3J5AgECAgMEAwAAAQcxAw9zY3JhdGNoX2FkZHJlc3MAAA1zY3JhdGNoX2J5dGVzAAELeG9yX3NjcmF0Y2gAAgoTAwUAQYAgCwYAQaCNBgsEACABCw==';

const LATER =
  "require('v8').setFlagsFromString('--js-immutable-arraybuffer'); require('vm').runInNewContext('new ArrayBuffer(1).transferToImmutable()')";
for (const [variant, sameRealm, has] of [
  ['made after load, in another realm', false, () => spawnNode(LATER).status === 0],
  ['made in this realm once every path is optimized for mutable ones', true, () => immutableArgs().length > 0],
]) {
  test(`immutable buffers ${variant} are refused on every tier, and read as sources and keys`, {
    skip: !has() && 'this V8 has no immutable ArrayBuffers',
  }, () => {
    const result = child(
      `${PRELUDE}
    const all = tiers();
    const MAKE = '(bytes) => { const b = new ArrayBuffer(bytes.length); new Uint8Array(b).set(bytes); return b.transferToImmutable(); }';
    let immutable;
    if (${sameRealm}) {
      immutable = (0, eval)(MAKE);
      // Hot first, so that the probes meet immutable views with code made for mutable ones of the same maps.
      const byteKey = Uint8Array.from(KEY);
      for (const impl of Object.values(all)) {
        for (let i = 0; i < 30000; i++) {
          const size = [0, 16, 200][i % 3];
          const view = i & 4 ? new Uint8Array(new ArrayBuffer(size + 16), 8, size) : Buffer.alloc(size);
          impl.mask(view, byteKey, view, 0, size);
          impl.mask(pattern(size, 4), i & 8 ? KEY.slice() : byteKey, view, 0, size);
          impl.unmask(view, byteKey);
        }
      }
    } else {
      require('v8').setFlagsFromString('--js-immutable-arraybuffer');
      immutable = require('vm').runInNewContext(MAKE);
    }
    const outcomes = {};
    const OPS = { mask: {}, 'in place': { inPlace: true }, unmask: { op: 'unmask', key: KEY.slice() } };
    for (const [name, impl] of Object.entries(all)) {
      for (const size of [0, 16, 200, 5000]) {
        for (const Type of [Uint8Array, Buffer, Float64Array, DataView])
          for (const [op, options] of Object.entries(OPS))
            outcomes[[name, op, size, Type.name].join(' ')] = check(impl, { size, Type, outputOver: immutable, ...options });
        const key = new Uint8Array(immutable(Uint8Array.from(KEY)));
        outcomes[[name, 'immutable source and key', size].join(' ')] = check(impl, { size, key, sourceOver: immutable });
      }
    }
    process.stdout.write(JSON.stringify(outcomes));`,
      { args: sameRealm ? immutableArgs() : [] }
    );
    const wanted = (name) => (name.includes('immutable source') ? 'ok' : 'threw TypeError ERR_INVALID_ARG_VALUE');
    const wrong = Object.entries(result).filter(([name, got]) => got !== wanted(name));
    assert.deepEqual(wrong, []);
  });
}

test('globals patched after load reach into no call, on every tier', () => {
  const result = child(`${PRELUDE}
    const all = tiers();
    const { defineProperty, getOwnPropertyDescriptor } = Reflect;
    const byteKey = Uint8Array.from(KEY);
    const calls = [
      (impl) => impl.mask(new Uint8Array(10), byteKey, new Uint8Array(20), 0, 11),
      (impl) => impl.mask(new Uint8Array(10), byteKey, new Uint8Array(20), 11, 10),
      (impl) => impl.mask('not a view', byteKey, new Uint8Array(20), 0, 1),
      // Checked without writing: where buffers may be immutable, an empty copyWithin asks.
      (impl) => impl.mask(new Uint8Array(10), byteKey, new Uint8Array(20), 3, 0),
    ];
    // Each call's message and code (as the error's own property). No array iteration in here: the patched iterator lies.
    const probe = (call, impl) => {
      try { call(impl); return 'no throw'; } catch (error) { return error.message + ' ' + getOwnPropertyDescriptor(error, 'code')?.value; }
    };
    const probes = (impl) => calls.map((call) => probe(call, impl));
    const before = Object.fromEntries(Object.entries(all).map(([name, impl]) => [name, probes(impl)]));

    const undo = [];
    const patch = (target, name, value, descriptor = { value, writable: true }) => {
      const was = getOwnPropertyDescriptor(target, name);
      undo.push(() => (was ? defineProperty(target, name, was) : delete target[name]));
      defineProperty(target, name, { configurable: true, ...descriptor });
    };
    const base64 = '${SUBSTITUTE_MODULE}';
    const SUBSTITUTE = [...Buffer.from(base64, 'base64')];
    const latin1 = Buffer.from(base64, 'base64').latin1Slice();
    // What is required, and the module's text decoded into the substitute: by a charCodeAt that spells it
    // (its length made up by a custom section), by atob (on Node 18, JavaScript calling Buffer's toString).
    const Module = require('module');
    const realRequire = Module.prototype.require;
    patch(Module.prototype, 'require', function (id) { return /wasm-module/.test(id) ? base64 : realRequire.call(this, id); });
    patch(String.prototype, 'charCodeAt', function (index) {
      const size = this.length - SUBSTITUTE.length - 3;
      return SUBSTITUTE.concat([0x00, (size & 0x7f) | 0x80, size >> 7])[index] ?? 0;
    });
    patch(globalThis, 'atob', () => latin1);
    patch(Buffer.prototype, 'toString', () => latin1);
    // Exports that skip the XOR and the WebAssembly constructors (the tier compiles on first use, after this), what makes
    // errors and their codes, and the TypedArray methods the tiers copy and probe with.
    const exportsGetter = getOwnPropertyDescriptor(WebAssembly.Instance.prototype, 'exports').get;
    patch(WebAssembly.Instance.prototype, 'exports', undefined, {
      get() {
        const real = exportsGetter.call(this);
        return { scratch_address: real.scratch_address, scratch_bytes: real.scratch_bytes, xor_scratch() {} };
      },
    });
    const real = { Instance: WebAssembly.Instance, Module: WebAssembly.Module, TypeError, RangeError };
    const substituteModule = () => new real.Module(new Uint8Array(SUBSTITUTE));
    patch(WebAssembly, 'Module', function Module() { return substituteModule(); });
    patch(WebAssembly, 'Instance', function Instance(module, imports) { return new real.Instance(substituteModule(), imports); });
    patch(globalThis, 'TypeError', function TypeError() { return new real.TypeError('patched TypeError'); });
    patch(globalThis, 'RangeError', function RangeError() { return new real.RangeError('patched RangeError'); });
    patch(Object, 'defineProperty', function defineProperty(object) { return object; });
    let codeSetterRan = 0;
    patch(Error.prototype, 'code', undefined, { set() { codeSetterRan++; } });
    const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
    patch(TypedArrayPrototype, 'set', function () {});
    patch(TypedArrayPrototype, 'copyWithin', function () { throw new real.TypeError('patched copyWithin'); });
    patch(Array.prototype, Symbol.iterator, function* () { yield 'a lie'; yield 0; });

    const after = {};
    for (const name in all) after[name] = probes(all[name]);
    undo.pop()(); // the iterator
    const outcomes = {};
    for (const [name, impl] of Object.entries(all))
      for (const size of [16, 100, 1024, 70000]) outcomes[name + ' ' + size] = check(impl, { size, total: 80000 });
    for (const restore of undo.reverse()) restore();
    process.stdout.write(JSON.stringify({ before, after, codeSetterRan, outcomes }));`);
  assert.deepEqual(result.after, result.before);
  const range = 'It must be >= 0 && <= source.byteLength (10). Received 11 ERR_OUT_OF_RANGE'; // with its code, on every tier
  for (const name of Object.keys(TIERS)) assert.ok(result.before[name][0].endsWith(range), result.before[name][0]);
  assert.match(result.before.index[2], /^The "source" argument must be an instance of Buffer/);
  assert.equal(result.before.index[3], 'no throw');
  assert.equal(result.codeSetterRan, 0);
  const wrong = Object.entries(result.outcomes).filter(([, outcome]) => outcome !== 'ok');
  assert.deepEqual(wrong, []);
});
