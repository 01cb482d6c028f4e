'use strict';

// The threat model around load (docs/safety.md), each scenario in a child process. (A stale addon of this
// version: __test__/loader.test.js.)

const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { immutableArgs, runJSON: child, spawnNode } = require('./helpers/child');

// The package, and each kernel routed as the package routes it, by helpers/implementations.js's names.
const TIERS = { index: 'index', native: 'native', wasm: 'wasm', js: 'fallback' };

// Shared by the children: the tiers, and a reference check of one mask call, every byte of the backing buffers compared.
const PRELUDE = `
  const load = (name) => require(${JSON.stringify(path.join(__dirname, 'helpers', 'implementations.js'))}).load(name);
  const tiers = () => Object.fromEntries(Object.entries(${JSON.stringify(TIERS)}).map(([name, file]) => [name, load(file)]));
  const reference = require(${JSON.stringify(path.join(__dirname, 'helpers', 'reference.js'))});
  const KEY = [0x3c, 0xa5, 0x0f, 0x96];
  const pattern = (n, seed) => Uint8Array.from({ length: n }, (_, i) => (i * 29 + seed) & 255);
  /** Masks through \`impl\` and says what happened: 'ok' (right bytes, nothing else changed), or why not. */
  function check(impl, { size, viewAt = 3000, total = 8192, inPlace = false, op = 'mask', Type = Uint8Array, key = Uint8Array.from(KEY) }) {
    const memory = pattern(total, 1);
    const expected = memory.slice();
    const count = Type === DataView ? size : size / Type.BYTES_PER_ELEMENT;
    const output = new Type(memory.buffer, viewAt, count);
    inPlace ||= op === 'unmask';
    const source = inPlace ? output : new Type(pattern(size + 64, 2).buffer, 32, count);
    const sourceBytes = inPlace ? expected.slice(viewAt, viewAt + size) : pattern(size + 64, 2).subarray(32, 32 + size);
    let threw = null;
    try {
      if (op === 'unmask') impl.unmask(output, key);
      else impl.mask(source, key, output, 0, size);
    } catch (error) {
      threw = error.code ?? error.message;
    }
    if (threw === null) reference.mask(sourceBytes, KEY, expected, viewAt, size);
    let outside = 0, inside = 0;
    for (let i = 0; i < total; i++) {
      if (memory[i] !== expected[i]) i >= viewAt && i < viewAt + size ? inside++ : outside++;
    }
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
    const spray = [];
    for (let i = 0; i < 20000; i++) spray.push(new ArrayBuffer(32));
    const outcomes = [300, 40, 5000].map((size) => check(index, { size })).concat([300, 40].map((size) => check(index, { size, op: 'unmask' })));
    process.stdout.write(JSON.stringify({ ran, reentered: reentered !== null, outcomes, backend: index.backend }));`,
    { env: { BUFFERUTIL_SIMD_LEVEL: 'scalar' } }
  );
  assert.deepEqual(result, { ran: [], reentered: false, outcomes: ['ok', 'ok', 'ok', 'ok', 'ok'], backend: 'scalar' });
});

test('accessors patched before load (descriptors and prototypes) never make the default tier write outside the views', (t) => {
  const script = `${PRELUDE}
      const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
      const realDescriptor = Object.getOwnPropertyDescriptor;
      const realPrototypeOf = Object.getPrototypeOf;
      const lie = { length: 4096, byteLength: 4096, byteOffset: -3000 };
      Object.getOwnPropertyDescriptor = function (object, name) {
        const descriptor = realDescriptor(object, name);
        if ((object === TypedArrayPrototype || object === DataView.prototype) && name in lie && descriptor?.get) {
          const get = descriptor.get;
          return { ...descriptor, get() { return get.call(this) + lie[name]; } };
        }
        return descriptor;
      };
      // A prototype whose accessors lie the same way, for code that finds them by Object.getPrototypeOf.
      const fake = Object.create(TypedArrayPrototype);
      for (const name of Object.keys(lie)) {
        const get = realDescriptor(TypedArrayPrototype, name).get;
        Object.defineProperty(fake, name, { get() { return get.call(this) + lie[name]; } });
      }
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
      process.stdout.write(JSON.stringify({ backend: index.backend, outcomes }));`;
  const result = child(script);
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
    const VIEWS = [Uint8Array, Buffer, Float64Array, DataView];
    for (const [name, impl] of Object.entries(all)) {
      for (const size of [0, 16, 200, 5000]) {
        for (const [View, op] of VIEWS.flatMap((View) => ['mask', 'in place', 'unmask'].map((op) => [View, op]))) {
          const buffer = immutable(pattern(size + 16, 3));
          const view = View === Buffer ? Buffer.from(buffer, 8, size) : new View(buffer, 8, View === Float64Array ? size >> 3 : size);
          let got = 'no throw';
          try {
            if (op === 'unmask') impl.unmask(view, KEY.slice());
            else impl.mask(op === 'mask' ? pattern(size, 4) : view, Uint8Array.from(KEY), view, 0, view.byteLength);
          } catch (error) { got = error.constructor.name + ' ' + error.code; }
          const same = new Uint8Array(buffer).every((b, i) => b === ((i * 29 + 3) & 255));
          outcomes[[name, op, size, View.name].join(' ')] = got + (same ? '' : ' and WROTE');
        }
        // Immutable sources and keys are only read.
        const source = new Uint8Array(immutable(pattern(size, 5)));
        const key = new Uint8Array(immutable(Uint8Array.from(KEY)));
        const output = new Uint8Array(size + 6);
        let got = 'ok';
        try { impl.mask(source, key, output, 6, size); } catch (error) { got = error.message; }
        const want = new Uint8Array(size + 6);
        reference.mask(source, KEY, want, 6, size);
        if (!output.every((b, i) => b === want[i])) got += ' wrong';
        outcomes[[name, 'immutable source and key', size].join(' ')] = got;
      }
    }
    process.stdout.write(JSON.stringify(outcomes));`,
      { args: sameRealm ? immutableArgs() : [] }
    );
    const wanted = (name) => (name.includes('immutable source') ? 'ok' : 'TypeError ERR_INVALID_ARG_VALUE');
    const wrong = Object.entries(result).filter(([name, got]) => got !== wanted(name));
    assert.deepEqual(wrong, []);
  });
}

test('globals patched after load reach into no call, on every tier', () => {
  const result = child(`${PRELUDE}
    const all = tiers();
    const messageOf = (fn) => { try { fn(); return 'no throw'; } catch (error) { return error.message; } };
    const byteKey = Uint8Array.from(KEY);
    const tooLong = (impl) => impl.mask(new Uint8Array(10), byteKey, new Uint8Array(20), 0, 11);
    const calls = [
      tooLong,
      (impl) => impl.mask(new Uint8Array(10), byteKey, new Uint8Array(20), 11, 10),
      (impl) => impl.mask('not a view', byteKey, new Uint8Array(20), 0, 1),
      // Checked without writing: where buffers may be immutable, an empty copyWithin asks.
      (impl) => impl.mask(new Uint8Array(10), byteKey, new Uint8Array(20), 3, 0),
    ];
    // No array iteration in here: the patched iterator lies.
    const probes = (impl) => calls.map((call) => messageOf(() => call(impl)));
    const before = Object.fromEntries(Object.entries(all).map(([name, impl]) => [name, probes(impl)]));

    const undo = [];
    const { defineProperty, getOwnPropertyDescriptor } = Reflect;
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
    // An Instance's exports that skip the XOR; the WebAssembly constructors (the module is compiled on the
    // tier's first use, after this), the error constructors, Object.defineProperty (how errors get their
    // code), a setter for every error's code, and the TypedArray methods the tiers copy and probe with.
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

    const names = Object.keys(all);
    const after = {};
    for (let i = 0; i < names.length; i++) after[names[i]] = probes(all[names[i]]);
    undo.pop()(); // the iterator
    const codes = Object.fromEntries(Object.entries(all).map(([name, impl]) => {
      try { tooLong(impl); return [name, 'no throw']; } catch (error) { return [name, getOwnPropertyDescriptor(error, 'code')?.value]; }
    }));
    const outcomes = {};
    for (const [name, impl] of Object.entries(all)) {
      for (const size of [16, 100, 1024, 70000]) outcomes[name + ' ' + size] = check(impl, { size, total: 80000, viewAt: 3000 });
    }
    for (const restore of undo.reverse()) restore();
    process.stdout.write(JSON.stringify({ before, after, codes, codeSetterRan, outcomes }));`);
  assert.deepEqual(result.after, result.before);
  assert.match(result.before.index[0], /It must be >= 0 && <= source\.byteLength \(10\)\. Received 11$/);
  assert.match(result.before.index[2], /^The "source" argument must be an instance of Buffer/);
  assert.equal(result.before.index[3], 'no throw');
  assert.deepEqual(result.codes, Object.fromEntries(Object.keys(TIERS).map((name) => [name, 'ERR_OUT_OF_RANGE'])));
  assert.equal(result.codeSetterRan, 0);
  const wrong = Object.entries(result.outcomes).filter(([, outcome]) => outcome !== 'ok');
  assert.deepEqual(wrong, []);
});
