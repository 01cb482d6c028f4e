'use strict';

// The hostile-input matrix: every argument of mask and unmask against every hostile class. A case builds fresh arguments,
// the same each time (so again for the oracle), in a `Context` that records every backing buffer for a byte-by-byte check,
// and lists the outcomes it accepts (`label`'s words). `runMatrix` runs the cases in children (`node hostile-runner.js
// IMPLEMENTATION FIRST_CASE`, printing "start I" and "done I JSON"): whatever kills one costs one case, and the next goes on.

const { writeSync } = require('node:fs');
const { immutableArgs, spawnLines } = require('./child');
const { ROOT, load, rawAddon } = require('./implementations');
const reference = require('./reference');

const GUARD = 16; // bytes of the backing buffer before and after most views: writes past a view land here
const [MAX, FOUR_GIB, Bytes] = [Number.MAX_SAFE_INTEGER, 2 ** 32, Uint8Array]; // Uint8Array as loaded: some cases patch it
class MissingFeature extends Error {} // thrown by a build that needs what this runtime lacks: the case is skipped
const need = (present, what) => {
  if (!present) throw new MissingFeature(`this runtime has no ${what}`);
};
const viewOf = (buffer, at, byteLength, Type) =>
  Type === Buffer ? Buffer.from(buffer, at, byteLength) : new Type(buffer, at, byteLength / (Type.BYTES_PER_ELEMENT ?? 1));
const product = (...lists) => lists.reduce((rows, list) => rows.flatMap((row) => list.map((item) => [...row, item])), [[]]);

/** A case's backing buffers, of pseudo-random bytes from `seed`, each checked byte by byte after the call. */
class Context {
  buffers = [];
  constructor(seed) {
    this.seed = seed;
  }
  track(buffer) {
    if (!this.buffers.includes(buffer)) this.buffers.push(buffer);
    return buffer;
  }
  /** A tracked buffer of `size` bytes (resizable or growable up to `max`). */
  buffer(size, { shared = false, maxByteLength: max } = {}) {
    const buffer = new (shared ? SharedArrayBuffer : ArrayBuffer)(size, max && { maxByteLength: max });
    need(buffer.maxByteLength === (max ?? buffer.maxByteLength), shared ? 'growable SharedArrayBuffer' : 'resizable ArrayBuffer');
    const bytes = new Bytes(buffer);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (this.seed = (Math.imul(this.seed, 1103515245) + 12345) >>> 0) >>> 24;
    return this.track(buffer);
  }
  /** A `Type` view of `byteLength` bytes with GUARD bytes either side (none after, `atEnd`). */
  view(byteLength, { Type = Uint8Array, shared = false, atEnd = false, immutable = false } = {}) {
    const buffer = this.buffer(GUARD + byteLength + (atEnd ? 0 : GUARD), { shared });
    need(!immutable || buffer.transferToImmutable, 'immutable ArrayBuffers');
    return viewOf(immutable ? this.track(buffer.transferToImmutable()) : buffer, GUARD, byteLength, Type);
  }
}

const fresh = (byteLength, options) => (c) => c.view(byteLength, options);
const shared = (byteLength, Type) => fresh(byteLength, { shared: true, Type });
const immutable = (byteLength, Type) => fresh(byteLength, { immutable: true, Type });
const atEnd = (byteLength) => fresh(byteLength, { atEnd: true });
const sameAsSource = (c, args) => args[0];
const huge = () => ({ length: 1e9 });
const detach = (buffer) => void structuredClone(buffer, { transfer: [buffer] });
const detachedView = (view) => (detach(view.buffer), view);
/** A `Type` view from byte `at` of a resizable (`shared`: growable) `size`-byte buffer, `bytes` long (null: tracking its
 * length), the buffer then resized to `to`. */
function resized(c, Type, size, to, at, bytes, shared = false) {
  const buffer = c.buffer(size, { shared, maxByteLength: 400 });
  const view = bytes === null ? new Type(buffer, at) : viewOf(buffer, at, bytes, Type);
  buffer[shared ? 'grow' : 'resize'](to);
  return view;
}
const hostile = () => {
  throw new Error('hostile getter');
};
const throwingTraps = Object.fromEntries(Object.getOwnPropertyNames(Reflect).map((trap) => [trap, hostile])); // Reflect's are the traps
/** A key array `values` whose element `index` is a getter, given the array. */
const keyWith = (index, get, values = [1, 2, 3, 4]) =>
  Object.defineProperty(values, index, { get: () => get(values), configurable: true });
const sideEffectKey = (effect) => keyWith(2, () => (effect(), 0x33), [0x11, 0x22, 0x33, 0x44]); // runs `effect` when read

const cases = [];
const ARGS = { mask: ['source', 'key', 'output', 'offset', 'length'], unmask: ['buffer', 'key'] };
/** Case `label`, its first word the entry it calls. `edit`: `{ argument: value }` (a function value is called as
 * `(context, args)`; `patch: [target, property, value]` replaces a global during the call), or `(args, context) => after?`. */
function add(label, edit, ...accepts) {
  const fn = label.split(' ', 1)[0];
  const names = ARGS[fn.replace(/^addon\.|Block$/g, '')];
  const build = (c) => {
    // The defaults: views with guards, a 4-byte key (the addon's own entries: a key word, as the runner calls them).
    const args = [c.view(100), fn.startsWith('addon.') ? 0x04030201 : c.view(4)];
    if (names.length > 2) args.push(c.view(120), 10, 100);
    if (typeof edit === 'function') return { args, after: edit(args, c) };
    const { patch: [target, property, to] = [], ...values } = edit;
    for (const [arg, value] of Object.entries(values))
      args[names.indexOf(arg)] = typeof value === 'function' ? value(c, args) : value;
    if (target === undefined) return { args };
    const original = target[property];
    target[property] = to;
    return { args, after: () => void (target[property] = original) };
  };
  cases.push({ name: label, fn, accepts, build });
}
function each(fn, arg, values, ...accepts) {
  for (const [name, value] of Object.entries(values)) add(`${fn} ${arg} = ${name}`, { [arg]: value }, ...accepts);
}
const keyCase = (name, key, ...accepts) => ['mask', 'unmask'].forEach((fn) => add(`${fn} key = ${name}`, { key }, ...accepts));

// --- Missing arguments: every prefix of the argument list.
for (const [fn, names] of Object.entries(ARGS))
  for (const [count, name] of names.entries())
    add(`${fn} with ${count} argument(s)`, (args) => void (args.length = count), `TypeError:${name === 'key' ? 'mask' : name}`);

// --- Values that are no ArrayBufferView, in every view position (but a valid key's): none of them may be read
// through (no getter, trap or valueOf runs). Nor a number at all, as offset and length.
const NOT_VIEWS = { undefined, null: null, 0: 0, NaN, string: 'abcd', true: true, symbol: () => Symbol('s'), bigint: 100n };
Object.assign(NOT_VIEWS, {
  'plain object': () => ({}),
  '{length: 1e9}': huge,
  'array-like {0..3, length: 4}': () => ({ 0: 1, 1: 2, 2: 3, 3: 4, length: 4 }),
  'Buffer look-alike': (c) => ({ buffer: c.buffer(64), byteOffset: 0, byteLength: 64, length: 64 }),
  'Object.create(Buffer.prototype)': () => Object.create(Buffer.prototype),
  function: () => function f() {},
  ArrayBuffer: (c) => c.buffer(64),
  SharedArrayBuffer: (c) => c.buffer(64, { shared: true }),
  'array of 4 numbers': () => [1, 2, 3, 4],
  'Proxy of a Buffer': (c) => new Proxy(c.view(64, { Type: Buffer }), {}),
  'Proxy, every trap throws': (c) => new Proxy(c.view(64), throwingTraps),
  'revoked Proxy': () => (({ proxy, revoke }) => (revoke(), proxy))(Proxy.revocable([1, 2, 3, 4], {})),
  'object whose valueOf throws': () => ({ valueOf: hostile, [Symbol.toPrimitive]: hostile }),
  'Number object': () => new Number(4),
});
const without = (values, ...names) => Object.fromEntries(Object.entries(values).filter(([name]) => !names.includes(name)));
for (const arg of ['source', 'output', 'buffer']) each(arg === 'buffer' ? 'unmask' : 'mask', arg, NOT_VIEWS, `TypeError:${arg}`);
for (const fn of ['mask', 'unmask']) each(fn, 'key', without(NOT_VIEWS, 'array of 4 numbers'), 'TypeError:mask');
const NOT_NUMBERS = { ...without(NOT_VIEWS, '0', 'NaN'), Buffer: fresh(8, { Type: Buffer }), 'numeric string "5"': '5' };
for (const arg of ['offset', 'length']) each('mask', arg, NOT_NUMBERS, `TypeError:${arg}`);

// --- Numbers that are no safe integer >= 0, or out of range of the views (output 120 B, source 100 B).
const NOT_INDICES = { '-1': -1, '-0.5': -0.5, 0.5: 0.5, 'Number.MIN_VALUE': Number.MIN_VALUE, NaN, Infinity };
Object.assign(NOT_INDICES, { '-Infinity': -Infinity, '2^53': 2 ** 53, '2^53 + 2': 2 ** 53 + 2, '1e300': 1e300 });
NOT_INDICES['-2^53'] = -(2 ** 53);
for (const arg of ['offset', 'length']) each('mask', arg, NOT_INDICES, `RangeError:${arg}`);
const PAST_OUTPUT = { '2^53 - 1': MAX, '2^32 + 10 (10 if wrapped)': FOUR_GIB + 10, '2^64 + 10': 2 ** 64 + 10 };
each('mask', 'offset', { ...PAST_OUTPUT, '21: past the output by 1 byte': 21 }, 'RangeError:offset');
each('mask', 'offset', { '20: ends exactly at the output end': 20, '-0': -0 }, 'ok');
const PAST_SOURCE = { '101: past the source by 1 byte': 101, '2^32 + 50 (50 if wrapped)': FOUR_GIB + 50 };
each('mask', 'length', { ...PAST_SOURCE, '2^64 + 50': 2 ** 64 + 50, '2^53 - 1': MAX }, 'RangeError:length');
each('mask', 'length', { 0: 0, '-0': -0, '3 (below the native threshold)': 3 }, 'ok');
const s200 = { source: fresh(200) }; // the output's 120 B bound the call
for (const [name, edit, accepts] of [
  ['offset = 120 = output.byteLength, length 0', { offset: 120, length: 0 }, 'ok'],
  ['offset = 121, length 0', { offset: 121, length: 0 }, 'RangeError:offset'],
  ['offset = 2^53 - 1, length 0', { offset: MAX, length: 0 }, 'RangeError:offset'],
  ['offset + length past the output by 1 byte (source 200 B)', { ...s200, length: 111 }, 'RangeError:offset'],
  ['offset + length past the output by 2^32 (source 200 B)', { ...s200, offset: 2 ** 32 + 10, length: 110 }, 'RangeError:offset'],
  ['offset + length = output end exactly (source 200 B)', { ...s200, length: 110 }, 'ok'],
])
  add(`mask ${name}`, edit, accepts);

// --- Keys: arrays, on both sides of every JS/native size switch.
for (const [name, key, ...accepts] of [
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
  ['[1, <hole>, 3, 4]', () => [1, , 3, 4], 'TypeError:mask[1]'],
  ['[1, 2, 3, 4n]', () => [1, 2, 3, 4n], 'TypeError:mask[3]'],
  ['[Number(1) object, 2, 3, 4]', () => [new Number(1), 2, 3, 4], 'TypeError:mask[0]'],
  ['[valueOf throws, 2, 3, 4]', () => [{ valueOf: hostile }, 2, 3, 4], 'TypeError:mask[0]'],
  ['[-0, 0, 255, 255]', () => [-0, 0, 255, 255], 'ok'],
  ['Array subclass', () => class Key extends Array {}.from([9, 8, 7, 6]), 'ok'],
  ['array with extra properties', () => Object.assign([5, 6, 7, 8], { extra: 1, length: 4 }), 'ok'],
  ['element getter throws', () => keyWith(2, hostile), 'user'],
  ['element getter returns a string', () => keyWith(1, () => '2'), 'TypeError:mask[1]'],
  ['getter truncates the array', () => keyWith(1, (key) => ((key.length = 2), 2)), 'TypeError:mask[2]', 'TypeError:mask[3]'],
  ['Proxy of an array', () => new Proxy([1, 2, 3, 4], {}), 'ok', 'TypeError:mask'],
  ['Proxy of an array, every trap throws', () => new Proxy([1, 2, 3, 4], throwingTraps), 'TypeError:mask', 'user'],
]) {
  keyCase(name, key, ...accepts);
  add(`mask key = ${name}, length 8 (JS path)`, { key, length: 8 }, ...accepts);
  add(`unmask key = ${name}, buffer 8 B (JS path)`, { key, buffer: fresh(8) }, ...accepts);
}

// --- Key getters that detach, grow or shrink the other arguments after those were checked: the route is chosen
// before the key is read, and must still honour `length` as the views are afterwards.
const detachingKey = (index) => (c, args) => sideEffectKey(() => detach(args[index].buffer));
add('mask key getter detaches the source', { key: detachingKey(0) }, 'RangeError:length');
add('mask key getter detaches the source, length 0', { key: detachingKey(0), length: 0 }, 'ok');
add('mask key getter detaches the output', { key: detachingKey(2) }, 'RangeError:length');
add('unmask key getter detaches the buffer', { key: detachingKey(0) }, 'ok');
// The same with length-tracking views on every route index.js can take: in place or into another output, below and
// above its size switches (300 B: above every runtime's unmask switch too, lib/thresholds.js). A shrunk buffer is put
// back afterwards so that every byte can be compared; a grown one is compared as grown, so a write past `length` shows.
const KEY_EFFECTS = Object.entries({ grows: 2, shrinks: 0.5, detaches: 0 }); // the buffer's size after, times before
for (const [View, size, [effect, factor]] of product([Uint8Array, DataView], [8, 200, 300], KEY_EFFECTS)) {
  const refused = factor === 2 ? 'ok' : 'RangeError:length';
  // Halved, the output is too small for `length`, but at 8 B (28 B) only from offset 10.
  const refusedOut = factor === 0.5 && size === 8 ? 'RangeError:offset' : refused;
  // [case, the view's buffer's size, [source, output, offset] given the view, accepted]
  for (const [name, byteLength, place, accepts] of [
    [`mask in place (${size} B), key getter %s the buffer`, size, (v) => [v, v, 0], refused],
    [`mask ${size} B into another output, key getter %s the source`, size, (v, c) => [v, c.view(size + 20), 10], refused],
    [`mask ${size} B into another output, key getter %s the output`, size + 20, (v, c) => [c.view(size), v, 10], refusedOut],
    [`unmask ${size} B, key getter %s the buffer`, size, (v) => [v], 'ok'],
  ]) {
    const edit = (args, c) => {
      const buffer = c.buffer(byteLength, { maxByteLength: 4 * byteLength });
      const [source, output, offset] = place(new View(buffer), c);
      Object.assign(args, { 0: source }, output && { 2: output, 3: offset, 4: size });
      args[1] = sideEffectKey(() => (factor ? buffer.resize(buffer.byteLength * factor) : detach(buffer)));
      if (factor === 0.5) return () => buffer.resize(byteLength);
    };
    add(`${name.replace('%s', effect)}${View === DataView ? ' under a DataView' : ''}`, edit, accepts);
  }
}

// --- Keys: views.
const lyingKey = (c) => Object.defineProperties(c.view(2), { length: { value: 1e9 }, byteLength: { get: hostile } });
for (const [name, key, accepts] of [
  ...[0, 1, 2, 3].map((size) => [`Buffer of ${size} B`, fresh(size, { Type: Buffer }), 'TypeError:mask']),
  ['3 B at the very end of its buffer', atEnd(3), 'TypeError:mask'],
  ['Uint16Array of 1 element (2 B)', fresh(2, { Type: Uint16Array }), 'TypeError:mask'],
  ['DataView of 3 B', fresh(3, { Type: DataView }), 'TypeError:mask'],
  ['4 B at the very end of its buffer', atEnd(4), 'ok'],
  ['Uint16Array of 2 elements', fresh(4, { Type: Uint16Array }), 'ok'],
  ['Float64Array of 1 element', fresh(8, { Type: Float64Array }), 'ok'],
  ['BigUint64Array of 1 element', fresh(8, { Type: BigUint64Array }), 'ok'],
  ['DataView of 4 B', fresh(4, { Type: DataView }), 'ok'],
  ['100 B view (first 4 used)', fresh(100), 'ok'],
  ['SharedArrayBuffer view', shared(4), 'ok'],
  ['immutable Uint8Array', immutable(4), 'ok'],
  ['detached Uint8Array', (c) => detachedView(c.view(4)), 'TypeError:mask'],
  ['detached DataView', (c) => detachedView(c.view(4, { Type: DataView })), 'TypeError:mask'],
  ['length-tracking view shrunk to 2 B', (c) => resized(c, Uint8Array, 8, 2, 0, null), 'TypeError:mask'],
  ['fixed view out of bounds of its shrunk buffer', (c) => resized(c, Uint8Array, 16, 4, 8, 4), 'TypeError:mask'],
  ['fixed DataView out of bounds of its shrunk buffer', (c) => resized(c, DataView, 16, 4, 8, 4), 'TypeError:mask'],
  ['Uint8Array with spoofed length 1e9 and throwing byteLength', lyingKey, 'TypeError:mask'],
])
  keyCase(name, key, accepts);

// --- Every kind of view as source, output and buffer (byte semantics), and the byte count limits.
const VIEW_TYPES = [Buffer, Int8Array, Uint8ClampedArray, Int16Array, Uint32Array, Float32Array, Float64Array, BigInt64Array];
for (const Type of [...VIEW_TYPES, DataView]) {
  const [view, output114, of] = [fresh(104, { Type }), fresh(114), `${Type.name} (104 B)`];
  add(`mask source = ${of}, length = 104`, { source: view, output: output114, length: 104 }, 'ok');
  add(`mask source = ${of}, length = 105`, { source: view, output: output114, length: 105 }, 'RangeError:length');
  add(`mask output = ${of}, offset + length = 104`, { output: view, offset: 4 }, 'ok');
  add(`mask output = ${of}, offset + length = 105`, { output: view, offset: 5 }, 'RangeError:offset');
  add(`unmask buffer = ${of}`, { buffer: view }, 'ok');
  add(`mask in place in one ${Type.name}`, { source: view, output: sameAsSource, offset: 0, length: 104 }, 'ok');
}

// --- Zero-length views, views at the very end of their buffer, views sharing a buffer or aliasing the key (which is
// read before anything is written).
const [emptyBytes, emptyBuffer, emptyDataView] = [() => new Uint8Array(0), () => Buffer.alloc(0), fresh(0, { Type: DataView })];
const s120 = { source: fresh(120) };
/** Source and output over one 300 B buffer: `[Type, byte offset, length]` each, and the offset. */
const over = ([S, from, n], [O, to, m], offset) => ({
  source: (c) => new S(c.buffer(300), from, n),
  output: (c, args) => new O(args[0].buffer, to, m),
  offset,
});
for (const [name, edit, accepts] of [
  ['mask source = empty Uint8Array, length 0', { source: emptyBytes, length: 0 }, 'ok'],
  ['mask source = empty Uint8Array, length 1', { source: emptyBytes }, 'RangeError:length'],
  ['mask output = empty Buffer, offset 0, length 0', { output: emptyBuffer, offset: 0, length: 0 }, 'ok'],
  ['mask output = empty Buffer, offset 1, length 0', { output: emptyBuffer, offset: 1, length: 0 }, 'RangeError:offset'],
  ['mask output = empty DataView mid-buffer, offset 0, length 0', { output: emptyDataView, offset: 0, length: 0 }, 'ok'],
  ['mask output = empty view mid-buffer, offset 0, length 1', { output: fresh(0), offset: 0, length: 1 }, 'RangeError:length'],
  ['mask source at the very end of its buffer, length = all of it', { source: atEnd(100) }, 'ok'],
  ['mask source at the very end of its buffer, length + 1', { source: atEnd(100), length: 101 }, 'RangeError:length'],
  ['mask output at the very end of its buffer, writing up to its end', { output: atEnd(110) }, 'ok'],
  ['mask output at the very end of its buffer, 1 byte past it', { output: atEnd(109) }, 'RangeError:offset'],
  ['unmask buffer at the very end of its buffer', { buffer: atEnd(100) }, 'ok'],
  ['unmask buffer of 65 B at the very end of its buffer', { buffer: atEnd(65) }, 'ok'],
  ['mask output = source, offset 0 (in place)', { output: sameAsSource, offset: 0 }, 'ok'],
  ['mask output = source, offset 3 (forward overlap through offset)', { ...s120, output: sameAsSource, offset: 3 }, 'ok'],
  ['mask key = the source itself, in place', { key: sameAsSource, output: sameAsSource, offset: 0 }, 'ok'],
  ['unmask key = the buffer itself, 8 B', { buffer: fresh(8), key: sameAsSource }, 'ok'],
  ['mask source and output on SharedArrayBuffers', { source: shared(100), output: shared(120, DataView) }, 'ok'],
  ['mask in place on one SharedArrayBuffer', { source: shared(120), output: sameAsSource, offset: 0 }, 'ok'],
  ['unmask buffer on a SharedArrayBuffer', { buffer: shared(100, Int16Array) }, 'ok'],
  ['mask output starts 5 B into the source (forward overlap)', over([Bytes, 16, 100], [Bytes, 21, 100], 0), 'ok'],
  ['mask output starts 5 B before the source (backward overlap)', over([Bytes, 21, 100], [Bytes, 16, 100], 0), 'ok'],
  ['mask source and output: different view types over one buffer', over([Float64Array, 8, 13], [DataView, 40, 120], 10), 'ok'],
])
  add(name, edit, accepts);
each('unmask', 'buffer', { 'empty Uint8Array': emptyBytes, 'empty DataView mid-buffer': emptyDataView }, 'ok');
each('mask', 'key', { 'the first 4 bytes of the output range': (c, args) => args[2].subarray(10, 14) }, 'ok');
each('unmask', 'key', { 'the buffer itself': sameAsSource }, 'ok');

// --- Resizable ArrayBuffer and growable SharedArrayBuffer backings.
/** Argument `index` a `Type` view from byte 8 of a resizable 200 B buffer (`bytes` long, null: length-tracking), the
 * buffer shrunk to `to` for the call and then put back. */
const shrunk = (Type, index, to, bytes, length) => (args, c) => {
  args[index] = resized(c, Type, 200, to, 8, bytes);
  if (length !== undefined) args[4] = length;
  return () => args[index].buffer.resize(200);
};
const growable = { buffer: (c) => resized(c, Uint8Array, 100, 160, 4, null, true) };
add('unmask buffer: length-tracking view on a growable SharedArrayBuffer, grown', growable, 'ok');
for (const Type of [Uint8Array, Uint16Array, DataView]) {
  const tracking = (size) => (c) => resized(c, Type, size, size, 8, null);
  const resizableSource = { source: tracking(208), output: fresh(210), length: 200 };
  add(`mask source: length-tracking ${Type.name} on a resizable buffer`, resizableSource, 'ok');
  add(`unmask buffer: length-tracking ${Type.name} on a resizable buffer`, { buffer: tracking(200) }, 'ok');
  // [case, argument index, bytes left, fixed view length (null: length-tracking), mask length, ...verdicts]
  for (const [name, index, to, bytes, length, ...accepts] of [
    ['mask source: length-tracking %s, buffer shrunk below length', 0, 60, null, 100, 'RangeError:length'],
    ['mask source: length-tracking %s, buffer shrunk, length fits', 0, 60, null, 52, 'ok'],
    ['mask source: fixed %s out of bounds of its shrunk buffer, length 0', 0, 40, 96, 0, 'ok'],
    ['mask source: fixed %s out of bounds of its shrunk buffer, length 100', 0, 40, 100, 100, 'RangeError:length'],
    ['mask output: length-tracking %s, buffer shrunk below length', 2, 100, null, 100, 'RangeError:length'],
    ['mask output: length-tracking %s, buffer shrunk below offset + length', 2, 112, null, 100, 'RangeError:offset'],
    ['mask output: length-tracking %s, buffer shrunk, writes fit', 2, 118, null, 100, 'ok'],
    ['mask output: fixed %s out of bounds of its shrunk buffer', 2, 40, 120, 100, 'RangeError:length'],
    ['unmask buffer: length-tracking %s, buffer shrunk', 0, 100, null, undefined, 'ok'],
    ['unmask buffer: length-tracking %s, buffer shrunk below its offset', 0, 4, null, undefined, 'ok'],
    ['unmask buffer: fixed %s out of bounds of its shrunk buffer', 0, 40, 96, undefined, 'ok'],
  ])
    add(name.replace('%s', Type.name), shrunk(Type, index, to, bytes, length), ...accepts);
}

// --- Detached backings (the view objects survive; their bytes are gone).
for (const Type of [Uint8Array, Buffer, Int32Array, DataView]) {
  const detached = (size) => (c) => detachedView(c.view(size, { Type }));
  for (const [name, edit, accepts] of [
    ['mask source = detached %s, length 0', { source: detached(100), length: 0 }, 'ok'],
    ['mask source = detached %s, length 100', { source: detached(100) }, 'RangeError:length'],
    ['mask output = detached %s, offset 0, length 0', { output: detached(120), offset: 0, length: 0 }, 'ok'],
    ['mask output = detached %s, length 100', { output: detached(120) }, 'RangeError:length'],
    ['unmask buffer = detached %s', { buffer: detached(100) }, 'ok'],
  ])
    add(name.replace('%s', Type.name), edit, accepts);
}

// --- Real views with spoofed own properties: the bytes are what count, never the properties.
const SPOOFS = {
  'own length = 1e9': { length: { value: 1e9 } },
  'own byteLength getter throws': { byteLength: { get: hostile } },
  'own length/byteLength = 0': { length: { value: 0 }, byteLength: { value: 0 } },
  'own byteOffset = 0 (really 16)': { byteOffset: { value: 0 } },
  'own buffer = another ArrayBuffer': { buffer: { value: new ArrayBuffer(4096) } },
};
const spoofed = (size, Type, spoof) => (c) => Object.defineProperties(c.view(size, { Type }), spoof);
for (const [[name, spoof], Type] of product(Object.entries(SPOOFS), [Uint8Array, Int32Array])) {
  const view = (size) => spoofed(size, Type, spoof);
  add(`mask source = ${Type.name}, ${name}`, { source: view(100) }, 'ok');
  add(`mask output = ${Type.name}, ${name}`, { output: view(120) }, 'ok');
  add(`unmask buffer = ${Type.name}, ${name}`, { buffer: view(100) }, 'ok');
  add(`unmask buffer = ${Type.name} 8 B, ${name}`, { buffer: view(8) }, 'ok');
  add(`unmask buffer = ${Type.name} 300 B, ${name}`, { buffer: view(300) }, 'ok');
}
for (const [name, spoof] of Object.entries(SPOOFS))
  add(`mask key = Uint8Array, ${name}`, { key: spoofed(4, Uint8Array, spoof) }, 'ok');

// --- The addon's own entries, called directly (the block entries with the numbers in the block): they trust lib/checks.js
// for the words of errors but must stay safe, giving a correct result or their one generic refusal with nothing written.
const WORDS = { 0: 0, '0x04030201': 0x04030201, '-1': -1, '-2^31': -(2 ** 31), '2^32 - 1': FOUR_GIB - 1, '-0': -0 };
const NOT_WORDS = { '2^32': FOUR_GIB, '-2^31 - 1': -(2 ** 31) - 1, 1.5: 1.5, NaN, Infinity, '2^53': 2 ** 53 };
const [detachOutput, outOfBounds] = [(c, args) => detachedView(args[2]), shrunk(DataView, 0, 40, 96)];
for (const fn of ['addon.mask', 'addon.maskBlock', 'addon.unmask', 'addon.unmaskBlock']) {
  each(fn, 'key', WORDS, 'ok');
  each(fn, 'key', NOT_WORDS, 'Refused');
  const view = fn.includes('unmask') ? 'buffer' : 'source';
  each(fn, view, { '{length: 1e9}': huge, undefined }, 'Refused');
  if (view === 'buffer') add(`${fn} buffer = fixed DataView out of bounds of its shrunk buffer`, outOfBounds, 'ok', 'Refused');
  else {
    each(fn, 'output', { '{length: 1e9}': huge, 'detached Uint8Array, length 100': detachOutput }, 'Refused');
    each(fn, 'offset', { '21: past the output by 1 byte': 21, '-1': -1, 0.5: 0.5 }, 'Refused');
    each(fn, 'length', { '101: past the source by 1 byte': 101, '2^32 + 50': FOUR_GIB + 50, NaN }, 'Refused');
  }
}

// --- Two distinct SharedArrayBuffer objects over the same memory (`structuredClone(sab)`, a shared WebAssembly.Memory
// before and after `grow`): only addresses tell that source and output overlap, and every tier gives the forward loop's bytes.
for (const [length, gap] of product([8, 200, 1000], [-3, 0, 1, 3, 4, 17])) {
  const source = (c) => new Uint8Array(c.buffer(GUARD + length + 32 + GUARD, { shared: true }), GUARD + 8, length);
  const output = (c, [{ buffer }]) => new Uint8Array(structuredClone(buffer), GUARD + 8 + gap, length);
  const name = `source and output over two SharedArrayBuffers of the same memory, ${length} B, output ${gap} B after`;
  add(`mask ${name}`, { source, output, offset: 0, length }, 'ok');
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
add('mask source and output over a shared WebAssembly.Memory before and after grow, output 1 B after', grown, 'ok');

// --- Globals patched for the length of the call change nothing: what a call relies on was captured when the package loaded.
const alwaysTrue = () => true;
const wholeBuffer = (Type) => [globalThis, Type.name, (buffer) => new Type(buffer)]; // the constructor, viewing all of it
const words = { source: fresh(1100), output: fresh(1200), offset: 20, length: 1100 }; // aligned: the JavaScript loop's words
add('mask Math.floor patched to 1e9, 1100 B aligned (the word loop)', { ...words, patch: [Math, 'floor', () => 1e9] }, 'ok');
add('mask Int32Array patched to view the whole buffer, 1100 B aligned', { ...words, patch: wholeBuffer(Int32Array) }, 'ok');
const [uint8, isInteger] = [wholeBuffer(Uint8Array), [Number, 'isInteger', alwaysTrue]];
for (const size of [8, 200, 1100]) {
  const edit = { source: fresh(size), output: fresh(size + 40, { Type: DataView }), offset: 20, length: size, patch: uint8 };
  add(`mask Uint8Array patched to view the whole buffer, output DataView, ${size} B`, edit, 'ok');
}
for (const size of [8, 200]) {
  const edit = { source: fresh(size), output: fresh(size + 20), offset: 1.5, length: size, patch: isInteger };
  add(`mask Number.isInteger patched to () => true, offset 1.5, ${size} B`, edit, 'RangeError:offset');
  const fraction = { source: fresh(size + 1), output: fresh(size + 20), length: size + 0.5, patch: isInteger };
  add(`mask Number.isInteger patched to () => true, length ${size}.5`, fraction, 'RangeError:length');
}
const arrayLike = { key: () => ({ 0: 1, 1: 2, 2: 3, 3: 4, length: 4 }), patch: [Array, 'isArray', alwaysTrue] };
add('mask Array.isArray patched to () => true, key = array-like of 4', arrayLike, 'TypeError:mask');
for (const [fn, [view]] of Object.entries(ARGS)) {
  const edit = { [view]: huge, patch: [ArrayBuffer, 'isView', alwaysTrue] };
  add(`${fn} ArrayBuffer.isView patched to () => true, ${view} = {length: 1e9}`, edit, `TypeError:${view}`);
}

// --- Immutable ArrayBuffers, where the runtime has them (Node 26 with --js-immutable-arraybuffer): an immutable output or
// in-place buffer is refused at every size, nothing written; an immutable source or key is only read; every other
// argument's error comes first, as docs/safety.md says.
for (const size of [0, 1, 8, 64, 200, 4096, 70000]) {
  for (const Type of [Uint8Array, Buffer, DataView]) {
    const of = `immutable ${Type.name}, ${size} B`;
    const inPlace = { source: immutable(size, Type), output: sameAsSource, offset: 0, length: size };
    add(`mask output = ${of}`, { source: fresh(size), output: immutable(size + 10, Type), length: size }, 'Immutable:output');
    add(`mask in place in an ${of}`, inPlace, 'Immutable:output');
    add(`unmask buffer = ${of}`, { buffer: immutable(size, Type) }, 'Immutable:buffer');
  }
  add(`mask source = immutable Uint8Array, ${size} B`, { source: immutable(size), output: fresh(size + 10), length: size }, 'ok');
}
const immutableSubarray = (c) => c.view(200, { Type: Buffer, immutable: true }).subarray(40, 160);
add('mask output = subarray of an immutable Buffer', { output: immutableSubarray }, 'Immutable:output');
for (const [what, edit, accepts] of [
  ['offset out of range', { offset: 21 }, 'RangeError:offset'],
  ['the source not a view', { source: 'not a view' }, 'TypeError:source'],
  ['the key short', { key: fresh(3) }, 'TypeError:mask'],
  ['a key element out of range', { key: () => [1, 2, 3, 256] }, 'RangeError:mask[3]'],
  ['length past the source', { length: 101 }, 'RangeError:length'],
])
  add(`mask output = immutable, and ${what}: the argument error first`, { output: immutable(120), ...edit }, accepts);
const shortKey = { buffer: immutable(100), key: fresh(3) };
add('unmask buffer = immutable, and the key short: the key error first', shortKey, 'TypeError:mask');

// --- The parent: every case's result from each implementation, and a label for it.

// The codes each error class may carry; which one a case gets is mask.test.js's to check.
const CODES = { TypeError: ['ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_VALUE'], RangeError: ['ERR_OUT_OF_RANGE'] };

/** Every case's result for `implementation` ('native', 'fallback', 'wasm', 'wasm-every-size', 'index', 'bufferutil'). */
async function runMatrix(implementation) {
  const results = new Array(cases.length);
  // Deno runs a CommonJS script only when told to. Where V8 has immutable ArrayBuffers behind a flag (Node 26), the
  // children run with it, so every tier meets them and the immutable cases run. A hang is killed at spawnLines' timeout.
  const runtime = process.versions.deno ? ['run', '-A', '--unstable-detect-cjs'] : immutableArgs();
  let started = -1;
  for (let first = 0; first < cases.length; first = started + 1) {
    const ended = await spawnLines([...runtime, require.resolve('./hostile-runner'), implementation, String(first)], {
      onLine(line) {
        const [, event, index, json] = /^(start|done) (\d+) ?(.*)$/.exec(line) ?? [];
        if (event === 'start') started = Number(index);
        else if (event === 'done') results[index] = JSON.parse(json);
      },
    });
    if (started < first) throw new Error(`${implementation}: the runner produced nothing`);
    if (results[started] !== undefined) break; // it ran to the end
    results[started] = { death: { ...ended, stderr: ended.stderr.slice(-2000), timedOut: ended.signal === 'SIGKILL' } };
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
  const { outcome, wrong } = result;
  if (outcome.kind === 'n/a' || outcome.kind === 'skip') return outcome.kind;
  const { constructor: type, code, message = '' } = outcome;
  const named = /"([^"]+)"/.exec(message)?.[1];
  let text = `${type} code=${code}: ${message.slice(0, 48)}`;
  if (outcome.kind === 'ok') text = 'ok';
  else if (type === 'Error' && message.startsWith('hostile')) text = 'user';
  else if (type === 'Error' && code === undefined && message.startsWith('bufferutil-simd: the addon refused')) text = 'Refused';
  else if (type === 'TypeError' && code === 'ERR_INVALID_ARG_VALUE' && /immutable/.test(message)) text = `Immutable:${named}`;
  else if (CODES[type]?.includes(code) && named) text = `${type}:${named}`;
  if (wrong > 0) text += outcome.kind === 'ok' ? ` +${wrong} WRONG BYTES` : ` +WROTE ${wrong} B`;
  return text;
}

/** Whether `result` is among the outcomes case `index` accepts, with every byte as it should be. */
function accepted(index, result) {
  const text = label(result);
  return cases[index].accepts.includes(text) || (text === 'n/a' && cases[index].fn.startsWith('addon.'));
}

// --- The child.

/** An implementation by name; bufferutil, for comparison; the native one with the addon's own entries, from a load of
 * its own (the package hands them to no one), with the numbers as arguments or in a block the addon adopts. */
function implementationNamed(name) {
  if (name === 'bufferutil') return require(require.resolve('bufferutil', { paths: [ROOT] }));
  if (name !== 'native') return load(name);
  const addon = rawAddon();
  const block = new Float64Array(new SharedArrayBuffer(32));
  if (addon.useBlock(block) !== true) throw new Error('hostile-matrix: the addon did not adopt the block');
  return {
    ...load('native'),
    'addon.mask': (source, word, output, offset, length) => addon.mask(source, output, offset, length, word),
    'addon.maskBlock': (source, word, output, ...numbers) => (block.set([...numbers, word]), addon.maskBlock(source, output)),
    'addon.unmask': (buffer, word) => addon.unmask(buffer, word),
    'addon.unmaskBlock': (buffer, word) => ((block[2] = word), addon.unmaskBlock(buffer)),
  };
}

// The oracle, and "nothing written" (the key read, running its getters as every implementation does).
const oracle = (fn, args) => reference[fn.replace(/^addon\.|Block$/g, '')](...args);
const readKey = (fn, [, key]) => {
  try {
    reference.keyOf(key);
  } catch {}
};

/** Builds case `index`, calls `call(fn, args)` on it: the outcome, and every tracked byte (null: detached). */
function execute(index, call) {
  const context = new Context(index + 1);
  const { args, after } = cases[index].build(context);
  let outcome = { kind: 'ok' };
  try {
    call(cases[index].fn, args);
  } catch (error) {
    const object = error !== null && typeof error === 'object';
    const [type, message] = object ? [error.constructor?.name, error.message] : [typeof error, error];
    outcome = { kind: 'throw', constructor: type, code: object ? error.code : undefined, message: String(message) };
  }
  after?.();
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

/** The child's work: each case's bytes against the oracle's if the call returned, else against nothing written. */
function child([name, first = '0']) {
  const implementation = implementationNamed(name);
  const call = (fn, args) => implementation[fn](...args);
  for (let index = Number(first); index < cases.length; index++) {
    writeSync(1, `start ${index}\n`);
    let result = { outcome: { kind: 'n/a' }, wrong: 0 };
    try {
      const applies = typeof implementation[cases[index].fn] === 'function';
      const actual = execute(index, applies ? call : readKey); // built even where n/a: a case this runtime cannot build is a skip
      if (applies) {
        const expected = execute(index, actual.outcome.kind === 'ok' ? oracle : readKey);
        result = { outcome: actual.outcome, wrong: countDifferences(actual.bytes, expected.bytes) };
      }
    } catch (error) {
      if (!(error instanceof MissingFeature)) throw error;
      result.outcome = { kind: 'skip', reason: error.message };
    }
    writeSync(1, `done ${index} ${JSON.stringify(result)}\n`);
  }
}

module.exports = { accepted, cases, child, label, runMatrix };
