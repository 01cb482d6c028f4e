'use strict';

// The hostile-input matrix: every argument of mask and unmask against every hostile class. A case builds fresh
// arguments in a `Context`, which records every backing buffer so that each byte of it is checked afterwards, the same
// each time (so again for the oracle), and lists the outcomes it accepts: 'ok', 'user' (a user getter's own error), or
// 'TypeError:name' / 'RangeError:name' (Node's code, naming the argument).

const GUARD = 16; // bytes of the backing buffer before and after most views: writes past a view land here

/** Thrown by a case's build that needs a feature this runtime lacks: the case is skipped with the reason. */
class MissingFeature extends Error {}
function need(present, what) {
  if (!present) throw new MissingFeature(`this runtime has no ${what}`);
}

/** A `Type` view of `byteLength` bytes of `buffer` from byte `at`. */
function viewOf(buffer, at, byteLength, Type) {
  if (Type === DataView) return new DataView(buffer, at, byteLength);
  if (Type === Buffer) return Buffer.from(buffer, at, byteLength);
  return new Type(buffer, at, byteLength / Type.BYTES_PER_ELEMENT);
}

class Context {
  constructor(seed) {
    this.seed = seed >>> 0 || 1;
    this.buffers = [];
  }

  /** Records `buffer` to be checked byte by byte after the call. */
  track(buffer) {
    if (!this.buffers.includes(buffer)) this.buffers.push(buffer);
    return buffer;
  }

  /** A tracked buffer of `size` bytes of pseudo-random content (resizable or growable given `maxByteLength`). */
  buffer(size, { shared = false, maxByteLength } = {}) {
    if (maxByteLength !== undefined) {
      if (shared) need(typeof SharedArrayBuffer.prototype.grow === 'function', 'growable SharedArrayBuffer');
      else need(typeof ArrayBuffer.prototype.resize === 'function', 'resizable ArrayBuffer');
    }
    const options = maxByteLength === undefined ? undefined : { maxByteLength };
    const buffer = shared ? new SharedArrayBuffer(size, options) : new ArrayBuffer(size, options);
    const bytes = new Uint8Array(buffer);
    for (let i = 0; i < bytes.length; i++) {
      this.seed = (Math.imul(this.seed, 1103515245) + 12345) >>> 0;
      bytes[i] = this.seed >>> 24;
    }
    return this.track(buffer);
  }

  /** A `Type` view of `byteLength` bytes with GUARD bytes either side (none after, `atEnd`). */
  view(byteLength, { Type = Uint8Array, shared = false, atEnd = false, immutable = false } = {}) {
    const size = GUARD + byteLength + (atEnd ? 0 : GUARD);
    if (immutable) need(typeof ArrayBuffer.prototype.transferToImmutable === 'function', 'immutable ArrayBuffers');
    const buffer = immutable ? this.track(this.buffer(size).transferToImmutable()) : this.buffer(size, { shared });
    return viewOf(buffer, GUARD, byteLength, Type);
  }
}

/** Makes a `Context.view` for a case. */
const fresh = (byteLength, options) => (c) => c.view(byteLength, options);
const detach = (buffer) => void structuredClone(buffer, { transfer: [buffer] });
const hostile = () => {
  throw new Error('hostile getter');
};
const TRAPS = ['get', 'set', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'defineProperty', 'apply'];
const throwingTraps = Object.fromEntries(TRAPS.map((trap) => [trap, hostile]));
/** A key array `values` whose element `index` is a getter. */
const keyWith = (index, get, values = [1, 2, 3, 4]) => Object.defineProperty(values, index, { get, configurable: true });
/** A key array whose element 2 runs `effect` when read. */
const sideEffectKey = (effect) => keyWith(2, () => (effect(), 0x33), [0x11, 0x22, 0x33, 0x44]);

const [MAX, FOUR_GIB, Bytes] = [Number.MAX_SAFE_INTEGER, 2 ** 32, Uint8Array];

/** Values that are no ArrayBufferView; none of them may be read through (no getter, trap or valueOf runs). */
const NOT_VIEWS = [
  ['undefined', undefined],
  ['null', null],
  ['0', 0],
  ['NaN', NaN],
  ['string', 'abcd'],
  ['true', true],
  ['symbol', () => Symbol('s')],
  ['bigint', 100n],
  ['plain object', () => ({})],
  ['{length: 1e9}', () => ({ length: 1e9 })],
  ['array-like {0..3, length: 4}', () => ({ 0: 1, 1: 2, 2: 3, 3: 4, length: 4 })],
  ['Buffer look-alike', (c) => ({ buffer: c.buffer(64), byteOffset: 0, byteLength: 64, length: 64 })],
  ['Object.create(Buffer.prototype)', () => Object.create(Buffer.prototype)],
  ['function', () => function f() {}],
  ['ArrayBuffer', (c) => c.buffer(64)],
  ['SharedArrayBuffer', (c) => c.buffer(64, { shared: true })],
  ['array of 4 numbers', () => [1, 2, 3, 4]],
  ['Proxy of a Buffer', (c) => new Proxy(c.view(64, { Type: Buffer }), {})],
  ['Proxy, every trap throws', (c) => new Proxy(c.view(64), throwingTraps)],
  ['revoked Proxy', () => (({ proxy, revoke }) => (revoke(), proxy))(Proxy.revocable([1, 2, 3, 4], {}))],
  ['object whose valueOf throws', () => ({ valueOf: hostile, [Symbol.toPrimitive]: hostile })],
  ['Number object', () => new Number(4)],
];
/** Values that are not numbers at all, for offset and length. */
const NOT_NUMBERS = NOT_VIEWS.filter(([name]) => name !== '0' && name !== 'NaN').concat([
  ['Buffer', fresh(8, { Type: Buffer })],
  ['numeric string "5"', '5'],
]);

const cases = [];

// Each entry point's arguments by name, and their defaults: views with guards, a 4-byte key.
const SHAPES = {
  mask: [['source', 'key', 'output', 'offset', 'length'], (c) => [c.view(100), c.view(4), c.view(120), 10, 100]],
  unmask: [['buffer', 'key'], (c) => [c.view(100), c.view(4)]],
  // The addon's own entries, as the runner calls them: a key word, and the numbers as arguments or in a block.
  'addon.mask': [['source', 'key', 'output', 'offset', 'length'], (c) => [c.view(100), 0x04030201, c.view(120), 10, 100]],
  'addon.unmask': [['buffer', 'key'], (c) => [c.view(100), 0x04030201]],
};
SHAPES['addon.maskBlock'] = SHAPES['addon.mask'];
SHAPES['addon.unmaskBlock'] = SHAPES['addon.unmask'];

/**
 * Case `fn name`. `edit` is `{ argument: value }` (a function value is called as `(context, args)` for the
 * value; `patch: [target, property, value]` replaces a global for the length of the call), or
 * `(args, context)` that changes the defaults and may return an `after()` to run after the call.
 */
function add(fn, name, edit, ...accepts) {
  const [names, defaults] = SHAPES[fn];
  const build = (c) => {
    const args = defaults(c);
    if (typeof edit === 'function') return { args, after: edit(args, c) };
    const { patch, ...values } = edit;
    for (const [arg, value] of Object.entries(values))
      args[names.indexOf(arg)] = typeof value === 'function' ? value(c, args) : value;
    if (patch === undefined) return { args };
    const [target, property, value] = patch;
    const original = target[property];
    target[property] = value;
    return { args, after: () => void (target[property] = original) };
  };
  cases.push({ name: `${fn} ${name}`, fn, accepts, build });
}
const maskCase = (...rest) => add('mask', ...rest);
const unmaskCase = (...rest) => add('unmask', ...rest);

// --- Missing arguments: every prefix of the argument list.
for (const [fn, [names]] of Object.entries(SHAPES).slice(0, 2)) {
  for (const [count, name] of names.entries()) {
    add(fn, `with ${count} argument(s)`, (args) => void (args.length = count), `TypeError:${name === 'key' ? 'mask' : name}`);
  }
}

// --- Values that are no view, in every view position; no number as offset and length.
for (const [name, value] of NOT_VIEWS) {
  maskCase(`source = ${name}`, { source: value }, 'TypeError:source');
  maskCase(`output = ${name}`, { output: value }, 'TypeError:output');
  unmaskCase(`buffer = ${name}`, { buffer: value }, 'TypeError:buffer');
  if (name === 'array of 4 numbers') continue; // a valid key
  maskCase(`key = ${name}`, { key: value }, 'TypeError:mask');
  unmaskCase(`key = ${name}`, { key: value }, 'TypeError:mask');
}
for (const [name, value] of NOT_NUMBERS) {
  maskCase(`offset = ${name}`, { offset: value }, 'TypeError:offset');
  maskCase(`length = ${name}`, { length: value }, 'TypeError:length');
}

// --- Numbers that are no safe integer >= 0, or out of range of the views (output 120 B, source 100 B).
const NOT_INDICES = {
  '-1': -1,
  '-0.5': -0.5,
  0.5: 0.5,
  'Number.MIN_VALUE': Number.MIN_VALUE,
  NaN,
  Infinity,
  '-Infinity': -Infinity,
};
Object.assign(NOT_INDICES, { '2^53': 2 ** 53, '2^53 + 2': 2 ** 53 + 2, '1e300': 1e300, '-2^53': -(2 ** 53) });
for (const [name, value] of Object.entries(NOT_INDICES)) {
  maskCase(`offset = ${name}`, { offset: value }, 'RangeError:offset');
  maskCase(`length = ${name}`, { length: value }, 'RangeError:length');
}
const source200 = fresh(200);
for (const [name, edit, accepts] of [
  ['offset = 2^53 - 1', { offset: MAX }, 'RangeError:offset'],
  ['offset = 2^32 + 10 (10 if wrapped)', { offset: FOUR_GIB + 10 }, 'RangeError:offset'],
  ['offset = 2^64 + 10', { offset: 2 ** 64 + 10 }, 'RangeError:offset'],
  ['offset = 21: past the output by 1 byte', { offset: 21 }, 'RangeError:offset'],
  ['offset = 20: ends exactly at the output end', { offset: 20 }, 'ok'],
  ['offset = -0', { offset: -0 }, 'ok'],
  ['offset = 120 = output.byteLength, length 0', { offset: 120, length: 0 }, 'ok'],
  ['offset = 121, length 0', { offset: 121, length: 0 }, 'RangeError:offset'],
  ['offset = 2^53 - 1, length 0', { offset: MAX, length: 0 }, 'RangeError:offset'],
  ['length = 101: past the source by 1 byte', { length: 101 }, 'RangeError:length'],
  ['length = 2^32 + 50 (50 if wrapped)', { length: FOUR_GIB + 50 }, 'RangeError:length'],
  ['length = 2^64 + 50', { length: 2 ** 64 + 50 }, 'RangeError:length'],
  ['length = 2^53 - 1', { length: MAX }, 'RangeError:length'],
  ['length = 0', { length: 0 }, 'ok'],
  ['length = -0', { length: -0 }, 'ok'],
  ['length = 3 (below the native threshold)', { length: 3 }, 'ok'],
  // The output's 120 B bound the call.
  ['offset + length past the output by 1 byte (source 200 B)', { source: source200, length: 111 }, 'RangeError:offset'],
  [
    'offset + length past the output by 2^32 (source 200 B)',
    { source: source200, offset: FOUR_GIB + 10, length: 110 },
    'RangeError:offset',
  ],
  ['offset + length = output end exactly (source 200 B)', { source: source200, length: 110 }, 'ok'],
]) {
  maskCase(name, edit, accepts);
}

// --- Keys: arrays, on both sides of every JS/native size switch.
const KEY_ARRAYS = [
  ['[]', () => [], 'TypeError:mask'],
  ['[1, 2, 3]', () => [1, 2, 3], 'TypeError:mask'],
  ['[1, 2, 3, 4, 5]', () => [1, 2, 3, 4, 5], 'TypeError:mask'],
  ['[256, 2, 3, 4]', () => [256, 2, 3, 4], 'RangeError:mask[0]'],
  ['[1, 2, 3, -1]', () => [1, 2, 3, -1], 'RangeError:mask[3]'],
  ['[1, 2, 1.5, 4]', () => [1, 2, 1.5, 4], 'RangeError:mask[2]'],
  ['[1, NaN, 3, 4]', () => [1, NaN, 3, 4], 'RangeError:mask[1]'],
  ['[1, 2, Infinity, 4]', () => [1, 2, Infinity, 4], 'RangeError:mask[2]'],
  ['[1, 2, 3, 2^32 + 1]', () => [1, 2, 3, FOUR_GIB + 1], 'RangeError:mask[3]'],
  ['[1, "2", 3, 4]', () => [1, '2', 3, 4], 'TypeError:mask[1]'],
  ['[1, 2, 3, null]', () => [1, 2, 3, null], 'TypeError:mask[3]'],
  ['[1, 2, 3, undefined]', () => [1, 2, 3, undefined], 'TypeError:mask[3]'],
  ['[1, <hole>, 3, 4]', () => [1, , 3, 4], 'TypeError:mask[1]'], // eslint-disable-line no-sparse-arrays
  ['[1, 2, 3, 4n]', () => [1, 2, 3, 4n], 'TypeError:mask[3]'],
  ['[Number(1) object, 2, 3, 4]', () => [new Number(1), 2, 3, 4], 'TypeError:mask[0]'],
  ['[valueOf throws, 2, 3, 4]', () => [{ valueOf: hostile }, 2, 3, 4], 'TypeError:mask[0]'],
  ['[-0, 0, 255, 255]', () => [-0, 0, 255, 255], 'ok'],
  ['Array subclass', () => class Key extends Array {}.from([9, 8, 7, 6]), 'ok'],
  ['array with extra properties', () => Object.assign([5, 6, 7, 8], { extra: 1, length: 4 }), 'ok'],
  ['element getter throws', () => keyWith(2, hostile), 'user'],
  ['element getter returns a string', () => keyWith(1, () => '2'), 'TypeError:mask[1]'],
  ['getter truncates the array', () => keyWith(1, truncate), 'TypeError:mask[2]', 'TypeError:mask[3]'],
  ['Proxy of an array', () => new Proxy([1, 2, 3, 4], {}), 'ok', 'TypeError:mask'],
  ['Proxy of an array, every trap throws', () => new Proxy([1, 2, 3, 4], throwingTraps), 'TypeError:mask', 'user'],
];
function truncate() {
  this.length = 2;
  return 2;
}
for (const [name, key, ...accepts] of KEY_ARRAYS) {
  maskCase(`key = ${name}`, { key }, ...accepts);
  unmaskCase(`key = ${name}`, { key }, ...accepts);
  maskCase(`key = ${name}, length 8 (JS path)`, { key, length: 8 }, ...accepts);
  unmaskCase(`key = ${name}, buffer 8 B (JS path)`, { key, buffer: fresh(8) }, ...accepts);
}

// --- Key getters that detach, grow or shrink the other arguments after those were checked: the route is
// chosen before the key is read, and must still honour `length` as the views are afterwards.
const detachingKey = (c, args) => sideEffectKey(() => detach(args[0].buffer));
const detachingOutputKey = (c, args) => sideEffectKey(() => detach(args[2].buffer));
maskCase('key getter detaches the source', { key: detachingKey }, 'RangeError:length');
maskCase('key getter detaches the source, length 0', { key: detachingKey, length: 0 }, 'ok');
maskCase('key getter detaches the output', { key: detachingOutputKey }, 'RangeError:length');
unmaskCase('key getter detaches the buffer', { key: detachingKey }, 'ok');

// The same with length-tracking views on every route index.js can take: in place or into another output,
// below and above its size switches (300 B: above every runtime's unmask switch too, lib/thresholds.js). A
// shrunk buffer is put back afterwards so that every byte can be compared; a grown one is compared as grown,
// so a write past `length` shows.
const KEY_EFFECTS = {
  grows: (buffer) => buffer.resize(buffer.byteLength * 2),
  shrinks: (buffer) => buffer.resize(buffer.byteLength >> 1),
  detaches: detach,
};
/** An edit: a length-tracking `View` of a fresh resizable `byteLength`-byte buffer put in by `place`, and a key whose getter acts on it. */
const keyActing = (effect, View, byteLength, place) => (args, c) => {
  const buffer = c.buffer(byteLength, { maxByteLength: 4 * byteLength });
  place(args, new View(buffer), c);
  args[1] = sideEffectKey(() => KEY_EFFECTS[effect](buffer));
  return effect === 'shrinks' ? () => buffer.resize(byteLength) : undefined;
};
for (const View of [Uint8Array, DataView]) {
  const under = View === DataView ? ' under a DataView' : '';
  for (const size of [8, 200, 300]) {
    for (const effect of Object.keys(KEY_EFFECTS)) {
      const edit = (byteLength, place) => keyActing(effect, View, byteLength, place);
      const refused = effect === 'grows' ? 'ok' : 'RangeError:length';
      const inPlace = edit(size, (args, view) => Object.assign(args, { 0: view, 2: view, 3: 0, 4: size }));
      maskCase(`in place (${size} B), key getter ${effect} the buffer${under}`, inPlace, refused);
      const fromView = edit(size, (args, view, c) => Object.assign(args, { 0: view, 2: c.view(size + 20), 3: 10, 4: size }));
      maskCase(`${size} B into another output, key getter ${effect} the source${under}`, fromView, refused);
      // Shrunk to half: too small for `length` at 200 B; at 8 B `length` fits but not at offset 10.
      const outputShrunk = size > (size + 20) >> 1 ? 'RangeError:length' : 'RangeError:offset';
      const intoView = edit(size + 20, (args, view, c) => Object.assign(args, { 0: c.view(size), 2: view, 3: 10, 4: size }));
      const accepts = { grows: 'ok', shrinks: outputShrunk, detaches: 'RangeError:length' }[effect];
      maskCase(`${size} B into another output, key getter ${effect} the output${under}`, intoView, accepts);
      const whole = edit(size, (args, view) => (args[0] = view));
      unmaskCase(`${size} B, key getter ${effect} the buffer${under}`, whole, 'ok');
    }
  }
}

// --- Keys: views.
/** A `Type` key over a resizable `size`-byte buffer (`at`: its offset and length, else length-tracking), the buffer then shrunk to `to`. */
function shrunkKey(c, Type, size, to, at = []) {
  const buffer = c.buffer(size, { maxByteLength: 64 });
  const key = new Type(buffer, ...at);
  buffer.resize(to);
  return key;
}
const detachedView = (view) => (detach(view.buffer), view);
const lyingKey = (c) => Object.defineProperties(c.view(2), { length: { value: 1e9 }, byteLength: { get: hostile } });
const KEY_VIEWS = [0, 1, 2, 3].map((size) => [`Buffer of ${size} B`, fresh(size, { Type: Buffer }), 'TypeError:mask']);
KEY_VIEWS.push(
  ['3 B at the very end of its buffer', fresh(3, { atEnd: true }), 'TypeError:mask'],
  ['Uint16Array of 1 element (2 B)', fresh(2, { Type: Uint16Array }), 'TypeError:mask'],
  ['DataView of 3 B', fresh(3, { Type: DataView }), 'TypeError:mask'],
  ['4 B at the very end of its buffer', fresh(4, { atEnd: true }), 'ok'],
  ['Uint16Array of 2 elements', fresh(4, { Type: Uint16Array }), 'ok'],
  ['Float64Array of 1 element', fresh(8, { Type: Float64Array }), 'ok'],
  ['BigUint64Array of 1 element', fresh(8, { Type: BigUint64Array }), 'ok'],
  ['DataView of 4 B', fresh(4, { Type: DataView }), 'ok'],
  ['100 B view (first 4 used)', fresh(100), 'ok'],
  ['SharedArrayBuffer view', fresh(4, { shared: true }), 'ok'],
  ['immutable Uint8Array', fresh(4, { immutable: true }), 'ok'],
  ['detached Uint8Array', (c) => detachedView(c.view(4)), 'TypeError:mask'],
  ['detached DataView', (c) => detachedView(c.view(4, { Type: DataView })), 'TypeError:mask'],
  ['length-tracking view shrunk to 2 B', (c) => shrunkKey(c, Uint8Array, 8, 2), 'TypeError:mask'],
  ['fixed view out of bounds of its shrunk buffer', (c) => shrunkKey(c, Uint8Array, 16, 4, [8, 4]), 'TypeError:mask'],
  ['fixed DataView out of bounds of its shrunk buffer', (c) => shrunkKey(c, DataView, 16, 4, [8, 4]), 'TypeError:mask'],
  ['Uint8Array with spoofed length 1e9 and throwing byteLength', lyingKey, 'TypeError:mask']
);
for (const [name, key, ...accepts] of KEY_VIEWS) {
  maskCase(`key = ${name}`, { key }, ...accepts);
  unmaskCase(`key = ${name}`, { key }, ...accepts);
}

// --- Every kind of view as source, output and buffer (byte semantics), and the byte count limits.
const VIEW_TYPES = [Buffer, Int8Array, Uint8ClampedArray, Int16Array, Uint32Array, Float32Array, Float64Array, BigInt64Array];
for (const Type of [...VIEW_TYPES, DataView]) {
  const view = fresh(104, { Type });
  const output114 = fresh(114);
  maskCase(`source = ${Type.name} (104 B), length = 104`, { source: view, output: output114, length: 104 }, 'ok');
  maskCase(`source = ${Type.name} (104 B), length = 105`, { source: view, output: output114, length: 105 }, 'RangeError:length');
  maskCase(`output = ${Type.name} (104 B), offset + length = 104`, { output: view, offset: 4 }, 'ok');
  maskCase(`output = ${Type.name} (104 B), offset + length = 105`, { output: view, offset: 5 }, 'RangeError:offset');
  unmaskCase(`buffer = ${Type.name} (104 B)`, { buffer: view }, 'ok');
  maskCase(`in place in one ${Type.name}`, { source: view, output: (c, args) => args[0], offset: 0, length: 104 }, 'ok');
}

// --- Zero-length views, views at the very end of their buffer, views sharing a buffer or aliasing the key.
const sameAsSource = (c, args) => args[0];
const atEnd = (size) => fresh(size, { atEnd: true });
const shared = (size, Type) => fresh(size, { shared: true, Type });
const [emptyBytes, emptyBuffer, emptyDataView] = [() => new Uint8Array(0), () => Buffer.alloc(0), fresh(0, { Type: DataView })];
for (const [fn, name, edit, accepts] of [
  ['mask', 'source = empty Uint8Array, length 0', { source: emptyBytes, length: 0 }, 'ok'],
  ['mask', 'source = empty Uint8Array, length 1', { source: emptyBytes }, 'RangeError:length'],
  ['mask', 'output = empty Buffer, offset 0, length 0', { output: emptyBuffer, offset: 0, length: 0 }, 'ok'],
  ['mask', 'output = empty Buffer, offset 1, length 0', { output: emptyBuffer, offset: 1, length: 0 }, 'RangeError:offset'],
  ['mask', 'output = empty DataView mid-buffer, offset 0, length 0', { output: emptyDataView, offset: 0, length: 0 }, 'ok'],
  ['mask', 'output = empty view mid-buffer, offset 0, length 1', { output: fresh(0), offset: 0, length: 1 }, 'RangeError:length'],
  ['unmask', 'buffer = empty Uint8Array', { buffer: emptyBytes }, 'ok'],
  ['unmask', 'buffer = empty DataView mid-buffer', { buffer: emptyDataView }, 'ok'],
  ['mask', 'source at the very end of its buffer, length = all of it', { source: atEnd(100) }, 'ok'],
  ['mask', 'source at the very end of its buffer, length + 1', { source: atEnd(100), length: 101 }, 'RangeError:length'],
  ['mask', 'output at the very end of its buffer, writing up to its end', { output: atEnd(110) }, 'ok'],
  ['mask', 'output at the very end of its buffer, 1 byte past it', { output: atEnd(109) }, 'RangeError:offset'],
  ['unmask', 'buffer at the very end of its buffer', { buffer: atEnd(100) }, 'ok'],
  ['unmask', 'buffer of 65 B at the very end of its buffer', { buffer: atEnd(65) }, 'ok'],
  ['mask', 'output = source, offset 0 (in place)', { output: sameAsSource, offset: 0 }, 'ok'],
  [
    'mask',
    'output = source, offset 3 (forward overlap through offset)',
    { source: fresh(120), output: sameAsSource, offset: 3 },
    'ok',
  ],
  // The key is read before anything is written.
  ['mask', 'key = the first 4 bytes of the output range', { key: (c, args) => args[2].subarray(10, 14) }, 'ok'],
  ['mask', 'key = the source itself, in place', { key: sameAsSource, output: sameAsSource, offset: 0 }, 'ok'],
  ['unmask', 'key = the buffer itself', { key: sameAsSource }, 'ok'],
  ['unmask', 'key = the buffer itself, 8 B', { buffer: fresh(8), key: sameAsSource }, 'ok'],
  // SharedArrayBuffer backings.
  ['mask', 'source and output on SharedArrayBuffers', { source: shared(100), output: shared(120, DataView) }, 'ok'],
  ['mask', 'in place on one SharedArrayBuffer', { source: shared(120), output: sameAsSource, offset: 0 }, 'ok'],
  ['unmask', 'buffer on a SharedArrayBuffer', { buffer: shared(100, Int16Array) }, 'ok'],
]) {
  add(fn, name, edit, accepts);
}
/** Source and output over one 300 B buffer: `[Type, byte offset, length]` each, and the offset. */
const overBuffer =
  ([S, from, n], [O, to, m], offset) =>
  (args, c) => {
    const buffer = c.buffer(300);
    Object.assign(args, { 0: new S(buffer, from, n), 2: new O(buffer, to, m), 3: offset });
  };
maskCase('output starts 5 B into the source (forward overlap)', overBuffer([Bytes, 16, 100], [Bytes, 21, 100], 0), 'ok');
maskCase('output starts 5 B before the source (backward overlap)', overBuffer([Bytes, 21, 100], [Bytes, 16, 100], 0), 'ok');
const differentTypes = overBuffer([Float64Array, 8, 13], [DataView, 40, 120], 10);
maskCase('source and output: different view types over one buffer', differentTypes, 'ok');

// --- Resizable ArrayBuffer and growable SharedArrayBuffer backings.
/** A `Type` view from byte 8 of a resizable 200 B buffer (length-tracking, or `bytes` long) as argument `index`, the buffer then shrunk to `to`. */
const shrunk = (Type, index, to, bytes, length) => (args, c) => {
  const buffer = c.buffer(200, { maxByteLength: 400 });
  args[index] = bytes === null ? new Type(buffer, 8) : viewOf(buffer, 8, bytes, Type);
  if (length !== undefined) args[4] = length;
  buffer.resize(to);
  return () => buffer.resize(200);
};
const growable = (args, c) => {
  const buffer = c.buffer(100, { shared: true, maxByteLength: 400 });
  args[0] = new Uint8Array(buffer, 4);
  buffer.grow(160);
};
unmaskCase('buffer: length-tracking view on a growable SharedArrayBuffer, grown', growable, 'ok');
for (const Type of [Uint8Array, Uint16Array, DataView]) {
  const label = Type.name;
  const tracking = (size) => (c) => new Type(c.buffer(size, { maxByteLength: 400 }), 8);
  const resizableSource = { source: tracking(208), output: fresh(210), length: 200 };
  maskCase(`source: length-tracking ${label} on a resizable buffer`, resizableSource, 'ok');
  unmaskCase(`buffer: length-tracking ${label} on a resizable buffer`, { buffer: tracking(200) }, 'ok');
  // [entry, case, argument index, bytes left, fixed view length (null: length-tracking), mask length, ...verdicts]
  for (const [fn, name, index, to, bytes, length, ...accepts] of [
    ['mask', `source: length-tracking ${label}, buffer shrunk below length`, 0, 60, null, 100, 'RangeError:length'],
    ['mask', `source: length-tracking ${label}, buffer shrunk, length fits`, 0, 60, null, 52, 'ok'],
    ['mask', `source: fixed ${label} out of bounds of its shrunk buffer, length 0`, 0, 40, 96, 0, 'ok'],
    ['mask', `source: fixed ${label} out of bounds of its shrunk buffer, length 100`, 0, 40, 100, 100, 'RangeError:length'],
    ['mask', `output: length-tracking ${label}, buffer shrunk below length`, 2, 100, null, 100, 'RangeError:length'],
    ['mask', `output: length-tracking ${label}, buffer shrunk below offset + length`, 2, 112, null, 100, 'RangeError:offset'],
    ['mask', `output: length-tracking ${label}, buffer shrunk, writes fit`, 2, 118, null, 100, 'ok'],
    ['mask', `output: fixed ${label} out of bounds of its shrunk buffer`, 2, 40, 120, 100, 'RangeError:length'],
    ['unmask', `buffer: length-tracking ${label}, buffer shrunk`, 0, 100, null, undefined, 'ok'],
    ['unmask', `buffer: length-tracking ${label}, buffer shrunk below its offset`, 0, 4, null, undefined, 'ok'],
    ['unmask', `buffer: fixed ${label} out of bounds of its shrunk buffer`, 0, 40, 96, undefined, 'ok'],
  ]) {
    add(fn, name, shrunk(Type, index, to, bytes, length), ...accepts);
  }
}

// --- Detached backings (the view objects survive; their bytes are gone).
for (const Type of [Uint8Array, Buffer, Int32Array, DataView]) {
  const detached = (size) => (c) => detachedView(c.view(size, { Type }));
  for (const [fn, name, edit, accepts] of [
    ['mask', 'source = detached %s, length 0', { source: detached(100), length: 0 }, 'ok'],
    ['mask', 'source = detached %s, length 100', { source: detached(100) }, 'RangeError:length'],
    ['mask', 'output = detached %s, offset 0, length 0', { output: detached(120), offset: 0, length: 0 }, 'ok'],
    ['mask', 'output = detached %s, length 100', { output: detached(120) }, 'RangeError:length'],
    ['unmask', 'buffer = detached %s', { buffer: detached(100) }, 'ok'],
  ]) {
    add(fn, name.replace('%s', Type.name), edit, accepts);
  }
}

// --- Real views with spoofed own properties: the bytes are what count, never the properties.
for (const [name, spoof] of [
  ['own length = 1e9', { length: { value: 1e9 } }],
  ['own byteLength getter throws', { byteLength: { get: hostile } }],
  ['own length/byteLength = 0', { length: { value: 0 }, byteLength: { value: 0 } }],
  ['own byteOffset = 0 (really 16)', { byteOffset: { value: 0 } }],
  ['own buffer = another ArrayBuffer', { buffer: { value: new ArrayBuffer(4096) } }],
]) {
  const spoofed = (size, Type) => (c) => Object.defineProperties(c.view(size, { Type }), spoof);
  for (const Type of [Uint8Array, Int32Array]) {
    maskCase(`source = ${Type.name}, ${name}`, { source: spoofed(100, Type) }, 'ok');
    maskCase(`output = ${Type.name}, ${name}`, { output: spoofed(120, Type) }, 'ok');
    unmaskCase(`buffer = ${Type.name}, ${name}`, { buffer: spoofed(100, Type) }, 'ok');
    unmaskCase(`buffer = ${Type.name} 8 B, ${name}`, { buffer: spoofed(8, Type) }, 'ok');
    unmaskCase(`buffer = ${Type.name} 300 B, ${name}`, { buffer: spoofed(300, Type) }, 'ok');
  }
  maskCase(`key = Uint8Array, ${name}`, { key: spoofed(4, Uint8Array) }, 'ok');
}

// --- The addon's own entries, called directly (hostile-matrix.js puts the numbers in the block for the
// block entries). They trust lib/checks.js for the words of errors, but must stay safe whatever they are
// given: a correct result, or their one generic refusal with nothing written.
const WORDS = { 0: 0, '0x04030201': 0x04030201, '-1': -1, '-2^31': -(2 ** 31), '2^32 - 1': FOUR_GIB - 1, '-0': -0 };
const NOT_WORDS = { '2^32': FOUR_GIB, '-2^31 - 1': -(2 ** 31) - 1, 1.5: 1.5, NaN, Infinity, '2^53': 2 ** 53 };
for (const fn of ['addon.mask', 'addon.maskBlock', 'addon.unmask', 'addon.unmaskBlock']) {
  for (const [name, word] of Object.entries(WORDS)) add(fn, `key = ${name}`, { key: word }, 'ok');
  for (const [name, word] of Object.entries(NOT_WORDS)) add(fn, `key = ${name}`, { key: word }, 'Refused');
  const [[view]] = SHAPES[fn];
  add(fn, `${view} = {length: 1e9}`, { [view]: () => ({ length: 1e9 }) }, 'Refused');
  add(fn, `${view} = undefined`, { [view]: undefined }, 'Refused');
  if (view === 'buffer') {
    add(fn, 'buffer = fixed DataView out of bounds of its shrunk buffer', shrunk(DataView, 0, 40, 96), 'ok', 'Refused');
    continue;
  }
  for (const [name, edit] of [
    ['output = {length: 1e9}', { output: () => ({ length: 1e9 }) }],
    ['offset = 21: past the output by 1 byte', { offset: 21 }],
    ['length = 101: past the source by 1 byte', { length: 101 }],
    ['length = 2^32 + 50', { length: FOUR_GIB + 50 }],
    ['offset = -1', { offset: -1 }],
    ['offset = 0.5', { offset: 0.5 }],
    ['length = NaN', { length: NaN }],
    ['output = detached Uint8Array, length 100', { output: (c, args) => detachedView(args[2]) }],
  ]) {
    add(fn, name, edit, 'Refused');
  }
}

// --- Two distinct SharedArrayBuffer objects over the same memory (`structuredClone(sab)`, a shared
// WebAssembly.Memory before and after `grow`): only addresses tell that source and output overlap, and
// every tier must still give the forward loop's bytes.
for (const length of [8, 200, 1000]) {
  for (const gap of [-3, 0, 1, 3, 4, 17]) {
    const aliases = (args, c) => {
      const shared = c.buffer(GUARD + length + 32 + GUARD, { shared: true });
      const alias = new Uint8Array(structuredClone(shared), GUARD + 8 + gap, length);
      Object.assign(args, { 0: new Uint8Array(shared, GUARD + 8, length), 2: alias, 3: 0, 4: length });
    };
    maskCase(
      `source and output over two SharedArrayBuffers of the same memory, ${length} B, output ${gap} B after`,
      aliases,
      'ok'
    );
  }
}
const grown = (args, c) => {
  need(typeof WebAssembly === 'object', 'WebAssembly');
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 2, shared: true });
  const before = memory.buffer;
  memory.grow(1);
  const after = c.track(memory.buffer);
  new Uint8Array(after).set(new Uint8Array(c.buffer(4096)));
  Object.assign(args, { 0: new Uint8Array(before, 64, 3000), 2: new Uint8Array(after, 65, 3000), 3: 0, 4: 3000 });
};
maskCase('source and output over a shared WebAssembly.Memory before and after grow, output 1 B after', grown, 'ok');

// --- Globals patched after load: what a call relies on was captured when the package loaded, so each
// patch, in place for the length of the call, changes nothing.
const [Int32, alwaysTrue] = [Int32Array, () => true];
// 1100 B, both sides 4-byte aligned: the JavaScript loop's words.
const aligned1100 = { source: fresh(1100), output: fresh(1200), offset: 20, length: 1100 };
const floor = { ...aligned1100, patch: [Math, 'floor', () => 1e9] };
maskCase('Math.floor patched to 1e9, 1100 B aligned (the word loop)', floor, 'ok');
const int32 = { ...aligned1100, patch: [globalThis, 'Int32Array', (buffer) => new Int32(buffer)] };
maskCase('Int32Array patched to view the whole buffer, 1100 B aligned', int32, 'ok');
for (const size of [8, 200, 1100]) {
  const patch = [globalThis, 'Uint8Array', (buffer) => new Bytes(buffer)];
  const edit = { source: fresh(size), output: fresh(size + 40, { Type: DataView }), offset: 20, length: size, patch };
  maskCase(`Uint8Array patched to view the whole buffer, output DataView, ${size} B`, edit, 'ok');
}
const isInteger = [Number, 'isInteger', alwaysTrue];
for (const size of [8, 200]) {
  const edit = { source: fresh(size), output: fresh(size + 20), offset: 1.5, length: size, patch: isInteger };
  maskCase(`Number.isInteger patched to () => true, offset 1.5, ${size} B`, edit, 'RangeError:offset');
  const fraction = { source: fresh(size + 1), output: fresh(size + 20), length: size + 0.5, patch: isInteger };
  maskCase(`Number.isInteger patched to () => true, length ${size}.5`, fraction, 'RangeError:length');
}
const arrayLike = { key: () => ({ 0: 1, 1: 2, 2: 3, 3: 4, length: 4 }), patch: [Array, 'isArray', alwaysTrue] };
maskCase('Array.isArray patched to () => true, key = array-like of 4', arrayLike, 'TypeError:mask');
for (const [fn, view] of Object.entries({ mask: 'source', unmask: 'buffer' })) {
  const edit = { [view]: () => ({ length: 1e9 }), patch: [ArrayBuffer, 'isView', alwaysTrue] };
  add(fn, `ArrayBuffer.isView patched to () => true, ${view} = {length: 1e9}`, edit, `TypeError:${view}`);
}

// --- Immutable ArrayBuffers, where the runtime has them (Node 26 with --js-immutable-arraybuffer): an
// immutable output or in-place buffer is refused at every size, nothing written; an immutable source or
// key is only read; every other argument's error comes first, as docs/safety.md says.
const immutable = (size, Type) => fresh(size, { Type, immutable: true });
for (const size of [0, 1, 8, 64, 200, 4096, 70000]) {
  for (const Type of [Uint8Array, Buffer, DataView]) {
    const of = `immutable ${Type.name}, ${size} B`;
    const inPlace = { source: immutable(size, Type), output: sameAsSource, offset: 0, length: size };
    maskCase(`output = ${of}`, { source: fresh(size), output: immutable(size + 10, Type), length: size }, 'Immutable:output');
    maskCase(`in place in an ${of}`, inPlace, 'Immutable:output');
    unmaskCase(`buffer = ${of}`, { buffer: immutable(size, Type) }, 'Immutable:buffer');
  }
  maskCase(`source = immutable Uint8Array, ${size} B`, { source: immutable(size), output: fresh(size + 10), length: size }, 'ok');
}
const immutableSubarray = (c) => c.view(200, { Type: Buffer, immutable: true }).subarray(40, 160);
maskCase('output = subarray of an immutable Buffer', { output: immutableSubarray }, 'Immutable:output');
for (const [what, edit, accepts] of [
  ['offset out of range', { offset: 21 }, 'RangeError:offset'],
  ['the source not a view', { source: 'not a view' }, 'TypeError:source'],
  ['the key short', { key: fresh(3) }, 'TypeError:mask'],
  ['a key element out of range', { key: () => [1, 2, 3, 256] }, 'RangeError:mask[3]'],
  ['length past the source', { length: 101 }, 'RangeError:length'],
]) {
  maskCase(`output = immutable, and ${what}: the argument error first`, { output: immutable(120), ...edit }, accepts);
}
const shortKey = { buffer: immutable(100), key: fresh(3) };
unmaskCase('buffer = immutable, and the key short: the key error first', shortKey, 'TypeError:mask');

/** Why case `index` cannot run on this runtime (a feature it needs is missing), or undefined. */
function skipReason(index) {
  try {
    const { after } = cases[index].build(new Context(index + 1));
    if (typeof after === 'function') after(); // a build may patch globals until its `after` runs
  } catch (error) {
    if (error instanceof MissingFeature) return error.message;
    throw error;
  }
  return undefined;
}

module.exports = { cases, Context, skipReason };
