'use strict';

// The hostile-input matrix: every argument of mask and unmask against every hostile class.
//
// A case builds fresh arguments in a `Context` (which records every backing buffer, to check each byte of
// it afterwards) and lists the outcomes it accepts: 'ok', 'user' (an error a user getter threw,
// propagated as-is), or 'TypeError:name' / 'RangeError:name' (with Node's code, naming the argument).
// Building is deterministic, so the same case can be built again for the oracle.

const GUARD = 16; // bytes of the backing buffer before and after most views: writes past a view land here

// Features a case may need that an older runtime lacks (Node 18 has neither): a case whose build asks for
// a missing one is skipped with the reason, never failed and never counted as passed.
const HAS_RESIZABLE = typeof ArrayBuffer.prototype.resize === 'function';
const HAS_GROWABLE_SHARED = typeof SharedArrayBuffer.prototype.grow === 'function';

class MissingFeature extends Error {}

class Context {
  constructor(seed) {
    this.seed = seed >>> 0 || 1;
    this.buffers = [];
  }

  /** Records `buffer` (an ArrayBuffer or SharedArrayBuffer) to be checked byte by byte after the call. */
  track(buffer) {
    if (!this.buffers.includes(buffer)) this.buffers.push(buffer);
    return buffer;
  }

  /** A tracked buffer of `size` bytes of pseudo-random content. */
  buffer(size, { shared = false, maxByteLength } = {}) {
    if (maxByteLength !== undefined && !(shared ? HAS_GROWABLE_SHARED : HAS_RESIZABLE)) {
      throw new MissingFeature(`this runtime has no ${shared ? 'growable SharedArrayBuffer' : 'resizable ArrayBuffer'}`);
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

  /** A `Type` view of `byteLength` bytes with GUARD bytes either side (or none after, `atEnd`). */
  view(byteLength, { Type = Uint8Array, shared = false, atEnd = false } = {}) {
    const buffer = this.buffer(GUARD + byteLength + (atEnd ? 0 : GUARD), { shared });
    if (Type === DataView) return new DataView(buffer, GUARD, byteLength);
    if (Type === Buffer) return Buffer.from(buffer, GUARD, byteLength);
    return new Type(buffer, GUARD, byteLength / Type.BYTES_PER_ELEMENT);
  }
}

const detach = (buffer) => void structuredClone(buffer, { transfer: [buffer] });

const userError = () => new Error('hostile getter');
const throwingTraps = {};
for (const trap of ['get', 'set', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'defineProperty', 'apply']) {
  throwingTraps[trap] = () => {
    throw new Error('hostile trap ran');
  };
}

/** Values that are no ArrayBufferView; none of them may be read through (no getter, trap or valueOf runs). */
const NOT_VIEWS = [
  ['undefined', () => undefined],
  ['null', () => null],
  ['0', () => 0],
  ['NaN', () => NaN],
  ['string', () => 'abcd'],
  ['true', () => true],
  ['symbol', () => Symbol('s')],
  ['bigint', () => 100n],
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
  [
    'revoked Proxy',
    () => {
      const { proxy, revoke } = Proxy.revocable([1, 2, 3, 4], {});
      revoke();
      return proxy;
    },
  ],
  [
    'object whose valueOf throws',
    () => ({
      valueOf: () => {
        throw userError();
      },
      [Symbol.toPrimitive]: () => {
        throw userError();
      },
    }),
  ],
  ['Number object', () => new Number(4)],
];

/** Values that are not numbers at all, for offset and length. */
const NOT_NUMBERS = NOT_VIEWS.filter(([name]) => name !== '0' && name !== 'NaN').concat([
  ['Buffer', (c) => c.view(8, { Type: Buffer })],
  ['numeric string "5"', () => '5'],
]);

const MAX = Number.MAX_SAFE_INTEGER;
const FOUR_GIB = 2 ** 32;

// Byte semantics for every kind of view: [name, Type, byteLength].
const VIEW_TYPES = [
  ['Buffer', Buffer, 104],
  ['Int8Array', Int8Array, 104],
  ['Uint8ClampedArray', Uint8ClampedArray, 104],
  ['Int16Array', Int16Array, 104],
  ['Uint32Array', Uint32Array, 104],
  ['Float32Array', Float32Array, 104],
  ['Float64Array', Float64Array, 104],
  ['BigInt64Array', BigInt64Array, 104],
  ['DataView', DataView, 104],
];

const cases = [];

/**
 * A mask case: `edit(args, context)` changes the default arguments (source 100 B, key 4 B, output 120 B,
 * offset 10, length 100; all views with guards) and may return an `after()` to run after the call.
 */
function maskCase(name, edit, ...accepts) {
  cases.push({
    name: `mask ${name}`,
    fn: 'mask',
    accepts,
    build(c) {
      const args = [c.view(100), c.view(4), c.view(120), 10, 100];
      const after = edit(args, c);
      return { args, after };
    },
  });
}

/** An unmask case: default arguments are buffer 100 B and key 4 B, both with guards. */
function unmaskCase(name, edit, ...accepts) {
  cases.push({
    name: `unmask ${name}`,
    fn: 'unmask',
    accepts,
    build(c) {
      const args = [c.view(100), c.view(4)];
      const after = edit(args, c);
      return { args, after };
    },
  });
}

const MASK_ARGS = ['source', 'mask', 'output', 'offset', 'length'];

// --- Missing arguments: every prefix of the argument list.
for (let count = 0; count < 5; count++) {
  maskCase(`with ${count} argument(s)`, (args) => void (args.length = count), `TypeError:${MASK_ARGS[count]}`);
}
for (let count = 0; count < 2; count++) {
  unmaskCase(`with ${count} argument(s)`, (args) => void (args.length = count), `TypeError:${['buffer', 'mask'][count]}`);
}

// --- Values that are no view, in every view position.
for (const [name, make] of NOT_VIEWS) {
  maskCase(`source = ${name}`, (args, c) => void (args[0] = make(c)), 'TypeError:source');
  maskCase(`output = ${name}`, (args, c) => void (args[2] = make(c)), 'TypeError:output');
  unmaskCase(`buffer = ${name}`, (args, c) => void (args[0] = make(c)), 'TypeError:buffer');
  if (name === 'array of 4 numbers') continue; // a valid key
  maskCase(`key = ${name}`, (args, c) => void (args[1] = make(c)), 'TypeError:mask');
  unmaskCase(`key = ${name}`, (args, c) => void (args[1] = make(c)), 'TypeError:mask');
}

// --- Values that are no number, as offset and length.
for (const [name, make] of NOT_NUMBERS) {
  maskCase(`offset = ${name}`, (args, c) => void (args[3] = make(c)), 'TypeError:offset');
  maskCase(`length = ${name}`, (args, c) => void (args[4] = make(c)), 'TypeError:length');
}

// --- Numbers that are no safe integer >= 0, or out of range of the views (output 120 B, source 100 B).
const BAD_INDICES = [
  ['-1', -1],
  ['-0.5', -0.5],
  ['0.5', 0.5],
  ['Number.MIN_VALUE', Number.MIN_VALUE],
  ['NaN', NaN],
  ['Infinity', Infinity],
  ['-Infinity', -Infinity],
  ['2^53', 2 ** 53],
  ['2^53 + 2', 2 ** 53 + 2],
  ['1e300', 1e300],
  ['-2^53', -(2 ** 53)],
];
for (const [name, value] of BAD_INDICES) {
  maskCase(`offset = ${name}`, (args) => void (args[3] = value), 'RangeError:offset');
  maskCase(`length = ${name}`, (args) => void (args[4] = value), 'RangeError:length');
}
maskCase('offset = 2^53 - 1', (args) => void (args[3] = MAX), 'RangeError:offset');
maskCase('offset = 2^32 + 10 (10 if wrapped)', (args) => void (args[3] = FOUR_GIB + 10), 'RangeError:offset');
maskCase('offset = 2^64 + 10', (args) => void (args[3] = 2 ** 64 + 10), 'RangeError:offset');
maskCase('offset = 21: past the output by 1 byte', (args) => void (args[3] = 21), 'RangeError:offset');
maskCase('offset = 20: ends exactly at the output end', (args) => void (args[3] = 20), 'ok');
maskCase('offset = -0', (args) => void (args[3] = -0), 'ok');
maskCase('offset = 120 = output.byteLength, length 0', (args) => void ((args[3] = 120), (args[4] = 0)), 'ok');
maskCase('offset = 121, length 0', (args) => void ((args[3] = 121), (args[4] = 0)), 'RangeError:offset');
maskCase('offset = 2^53 - 1, length 0', (args) => void ((args[3] = MAX), (args[4] = 0)), 'RangeError:offset');
maskCase('length = 101: past the source by 1 byte', (args) => void (args[4] = 101), 'RangeError:length');
maskCase('length = 2^32 + 50 (50 if wrapped)', (args) => void (args[4] = FOUR_GIB + 50), 'RangeError:length');
maskCase('length = 2^64 + 50', (args) => void (args[4] = 2 ** 64 + 50), 'RangeError:length');
maskCase('length = 2^53 - 1', (args) => void (args[4] = MAX), 'RangeError:length');
maskCase('length = 0', (args) => void (args[4] = 0), 'ok');
maskCase('length = -0', (args) => void (args[4] = -0), 'ok');
maskCase('length = 3 (below the native threshold)', (args) => void (args[4] = 3), 'ok');
// A 200 B source: the output's 120 B bound the call.
for (const [name, offset, length, accepts] of [
  ['past the output by 1 byte', 10, 111, 'RangeError:offset'],
  ['past the output by 2^32', FOUR_GIB + 10, 110, 'RangeError:offset'],
  ['= output end exactly', 10, 110, 'ok'],
]) {
  maskCase(
    `offset + length ${name} (source 200 B)`,
    (args, c) => void ((args[0] = c.view(200)), (args[3] = offset), (args[4] = length)),
    accepts
  );
}

// --- Keys: arrays.
const BAD_KEY_ARRAYS = [
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
  [
    '[valueOf throws, 2, 3, 4]',
    () => [
      {
        valueOf: () => {
          throw userError();
        },
      },
      2,
      3,
      4,
    ],
    'TypeError:mask[0]',
  ],
  ['[-0, 0, 255, 255]', () => [-0, 0, 255, 255], 'ok'],
  [
    'Array subclass',
    () => {
      class Key extends Array {}
      return Key.from([9, 8, 7, 6]);
    },
    'ok',
  ],
  ['array with extra properties', () => Object.assign([5, 6, 7, 8], { extra: 1, length: 4 }), 'ok'],
  [
    'element getter throws',
    () => {
      const key = [1, 2, 3, 4];
      Object.defineProperty(key, 2, {
        get() {
          throw userError();
        },
      });
      return key;
    },
    'user',
  ],
  [
    'element getter returns a string',
    () => {
      const key = [1, 2, 3, 4];
      Object.defineProperty(key, 1, { get: () => '2' });
      return key;
    },
    'TypeError:mask[1]',
  ],
  [
    'getter truncates the array',
    () => {
      const key = [1, 2, 3, 4];
      Object.defineProperty(key, 1, {
        get() {
          key.length = 2;
          return 2;
        },
        configurable: true,
      });
      return key;
    },
    'TypeError:mask[2]',
    'TypeError:mask[3]',
  ],
  ['Proxy of an array', () => new Proxy([1, 2, 3, 4], {}), 'ok', 'TypeError:mask'],
  ['Proxy of an array, every trap throws', () => new Proxy([1, 2, 3, 4], throwingTraps), 'TypeError:mask', 'user'],
];
for (const [name, make, ...accepts] of BAD_KEY_ARRAYS) {
  maskCase(`key = ${name}`, (args) => void (args[1] = make()), ...accepts);
  unmaskCase(`key = ${name}`, (args) => void (args[1] = make()), ...accepts);
  maskCase(`key = ${name}, length 8 (JS path)`, (args) => void ((args[1] = make()), (args[4] = 8)), ...accepts);
  unmaskCase(`key = ${name}, buffer 8 B (JS path)`, (args, c) => void ((args[1] = make()), (args[0] = c.view(8))), ...accepts);
}

/** A key array whose element 2 runs `effect` when read. */
function sideEffectKey(effect) {
  const key = [0x11, 0x22, 0x33, 0x44];
  Object.defineProperty(key, 2, {
    get() {
      effect();
      return 0x33;
    },
  });
  return key;
}

// Key getters that detach or shrink the other arguments after those were checked.
/** A key whose getter detaches the buffer of `args[index]`. */
const detachingKey = (args, index) => {
  const buffer = args[index].buffer;
  args[1] = sideEffectKey(() => detach(buffer));
};
maskCase('key getter detaches the source', (args) => detachingKey(args, 0), 'RangeError:length');
maskCase(
  'key getter detaches the source, length 0',
  (args) => {
    detachingKey(args, 0);
    args[4] = 0;
  },
  'ok'
);
maskCase('key getter detaches the output', (args) => detachingKey(args, 2), 'RangeError:length');
unmaskCase('key getter detaches the buffer', (args) => detachingKey(args, 0), 'ok');
unmaskCase(
  'key getter detaches the buffer (DataView)',
  (args, c) => {
    args[0] = c.view(100, { Type: DataView });
    detachingKey(args, 0);
  },
  'ok'
);
for (const [label, Type] of [
  ['Uint8Array', Uint8Array],
  ['DataView', DataView],
]) {
  /** A length-tracking `Type` view from byte 8 of a resizable 200 B buffer as `args[index]`, and a key whose getter shrinks that buffer to 50 B. */
  const shrinkingKey = (args, c, index) => {
    const buffer = c.buffer(200, { maxByteLength: 400 });
    args[index] = new Type(buffer, 8);
    args[1] = sideEffectKey(() => buffer.resize(50));
    // Bytes 50.. must read back as they were (zero) if nothing wrote there.
    return () => buffer.resize(200);
  };
  maskCase(
    `key getter shrinks a resizable source under a length-tracking ${label}`,
    (args, c) => shrinkingKey(args, c, 0),
    'RangeError:length'
  );
  maskCase(
    `key getter shrinks a resizable output under a length-tracking ${label}`,
    (args, c) => shrinkingKey(args, c, 2),
    'RangeError:length'
  );
  unmaskCase(
    `key getter shrinks a resizable buffer under a length-tracking ${label}`,
    (args, c) => shrinkingKey(args, c, 0),
    'ok'
  );
}

// The same key getters on every route index.js can take (in place or into another output; below and
// above its JS/native size switches), growing, shrinking or detaching what is about to be written: the
// route is chosen before the key is read, and must still honour `length` as the views are afterwards.
const KEY_EFFECTS = {
  grows: (buffer) => buffer.resize(buffer.byteLength * 2),
  shrinks: (buffer) => buffer.resize(buffer.byteLength >> 1),
  detaches: detach,
};
// 300 B: above every runtime's unmask switch too (Bun's is 208 B, lib/thresholds.js).
for (const size of [8, 200, 300]) {
  for (const [effect, act] of Object.entries(KEY_EFFECTS)) {
    // A length-tracking view of a fresh resizable buffer of `byteLength` bytes. A shrunk one is put back
    // to that size afterwards so that every byte can be compared; a grown one is compared as grown, so
    // a write past `length` shows.
    const tracking = (c, byteLength) => {
      const buffer = c.buffer(byteLength, { maxByteLength: 4 * byteLength });
      const after = effect === 'shrinks' ? () => buffer.resize(byteLength) : undefined;
      return { buffer, view: new Uint8Array(buffer), after };
    };
    maskCase(
      `in place (${size} B), key getter ${effect} the buffer`,
      (args, c) => {
        const { buffer, view, after } = tracking(c, size);
        args.splice(
          0,
          5,
          view,
          sideEffectKey(() => act(buffer)),
          view,
          0,
          size
        );
        return after;
      },
      effect === 'grows' ? 'ok' : 'RangeError:length'
    );
    maskCase(
      `${size} B into another output, key getter ${effect} the source`,
      (args, c) => {
        const { buffer, view, after } = tracking(c, size);
        args.splice(
          0,
          5,
          view,
          sideEffectKey(() => act(buffer)),
          c.view(size + 20),
          10,
          size
        );
        return after;
      },
      effect === 'grows' ? 'ok' : 'RangeError:length'
    );
    // Shrunk to half: too small for `length` at 200 B; at 8 B `length` fits but not at offset 10.
    const outputShrunk = size > (size + 20) >> 1 ? 'RangeError:length' : 'RangeError:offset';
    maskCase(
      `${size} B into another output, key getter ${effect} the output`,
      (args, c) => {
        const { buffer, view, after } = tracking(c, size + 20);
        args.splice(
          0,
          5,
          c.view(size),
          sideEffectKey(() => act(buffer)),
          view,
          10,
          size
        );
        return after;
      },
      { grows: 'ok', shrinks: outputShrunk, detaches: 'RangeError:length' }[effect]
    );
    unmaskCase(
      `${size} B, key getter ${effect} the buffer`,
      (args, c) => {
        const { buffer, view, after } = tracking(c, size);
        args.splice(
          0,
          2,
          view,
          sideEffectKey(() => act(buffer))
        );
        return after;
      },
      'ok'
    );
  }
}

// --- Keys: views.
for (const size of [0, 1, 2, 3]) {
  maskCase(`key = Buffer of ${size} B`, (args, c) => void (args[1] = c.view(size, { Type: Buffer })), 'TypeError:mask');
  unmaskCase(`key = Buffer of ${size} B`, (args, c) => void (args[1] = c.view(size, { Type: Buffer })), 'TypeError:mask');
}
const detachedView = (view) => (detach(view.buffer), view);
/** A `Type` key over a resizable `size`-byte buffer (`at`: its offset and length, else length-tracking), the buffer then shrunk to `to`. */
function shrunkKey(c, Type, size, to, at = []) {
  const buffer = c.buffer(size, { maxByteLength: 64 });
  const key = new Type(buffer, ...at);
  buffer.resize(to);
  return key;
}
const KEY_VIEWS = [
  ['3 B at the very end of its buffer', (c) => c.view(3, { atEnd: true }), 'TypeError:mask'],
  ['Uint16Array of 1 element (2 B)', (c) => c.view(2, { Type: Uint16Array }), 'TypeError:mask'],
  ['DataView of 3 B', (c) => c.view(3, { Type: DataView }), 'TypeError:mask'],
  ['4 B at the very end of its buffer', (c) => c.view(4, { atEnd: true }), 'ok'],
  ['Uint16Array of 2 elements', (c) => c.view(4, { Type: Uint16Array }), 'ok'],
  ['Float64Array of 1 element', (c) => c.view(8, { Type: Float64Array }), 'ok'],
  ['BigUint64Array of 1 element', (c) => c.view(8, { Type: BigUint64Array }), 'ok'],
  ['DataView of 4 B', (c) => c.view(4, { Type: DataView }), 'ok'],
  ['100 B view (first 4 used)', (c) => c.view(100), 'ok'],
  ['SharedArrayBuffer view', (c) => c.view(4, { shared: true }), 'ok'],
  ['detached Uint8Array', (c) => detachedView(c.view(4)), 'TypeError:mask'],
  ['detached DataView', (c) => detachedView(c.view(4, { Type: DataView })), 'TypeError:mask'],
  ['length-tracking view shrunk to 2 B', (c) => shrunkKey(c, Uint8Array, 8, 2), 'TypeError:mask'],
  ['fixed view out of bounds of its shrunk buffer', (c) => shrunkKey(c, Uint8Array, 16, 4, [8, 4]), 'TypeError:mask'],
  ['fixed DataView out of bounds of its shrunk buffer', (c) => shrunkKey(c, DataView, 16, 4, [8, 4]), 'TypeError:mask'],
  [
    'Uint8Array with spoofed length 1e9 and throwing byteLength',
    (c) => {
      const key = c.view(2);
      Object.defineProperty(key, 'length', { value: 1e9 });
      Object.defineProperty(key, 'byteLength', {
        get() {
          throw userError();
        },
      });
      return key;
    },
    'TypeError:mask',
  ],
];
for (const [name, make, ...accepts] of KEY_VIEWS) {
  maskCase(`key = ${name}`, (args, c) => void (args[1] = make(c)), ...accepts);
  unmaskCase(`key = ${name}`, (args, c) => void (args[1] = make(c)), ...accepts);
}

// --- Every kind of view as source, output and buffer (byte semantics), and the byte count limits.
for (const [name, Type, size] of VIEW_TYPES) {
  maskCase(
    `source = ${name} (${size} B), length = ${size}`,
    (args, c) => {
      args[0] = c.view(size, { Type });
      args[2] = c.view(size + 10);
      args[4] = size;
    },
    'ok'
  );
  maskCase(
    `source = ${name} (${size} B), length = ${size + 1}`,
    (args, c) => {
      args[0] = c.view(size, { Type });
      args[2] = c.view(size + 10);
      args[4] = size + 1;
    },
    'RangeError:length'
  );
  maskCase(
    `output = ${name} (${size} B), offset + length = ${size}`,
    (args, c) => {
      args[2] = c.view(size, { Type });
      args[3] = size - 100;
    },
    'ok'
  );
  maskCase(
    `output = ${name} (${size} B), offset + length = ${size + 1}`,
    (args, c) => {
      args[2] = c.view(size, { Type });
      args[3] = size - 99;
    },
    'RangeError:offset'
  );
  unmaskCase(`buffer = ${name} (${size} B)`, (args, c) => void (args[0] = c.view(size, { Type })), 'ok');
  maskCase(
    `in place in one ${name}`,
    (args, c) => {
      args[0] = args[2] = c.view(size, { Type });
      args[3] = 0;
      args[4] = size;
    },
    'ok'
  );
}

// --- Zero-length views, views at the very end of their buffer, views sharing a buffer.
maskCase('source = empty Uint8Array, length 0', (args) => void ((args[0] = new Uint8Array(0)), (args[4] = 0)), 'ok');
maskCase('source = empty Uint8Array, length 1', (args) => void (args[0] = new Uint8Array(0)), 'RangeError:length');
maskCase(
  'output = empty Buffer, offset 0, length 0',
  (args) => void ((args[2] = Buffer.alloc(0)), (args[3] = 0), (args[4] = 0)),
  'ok'
);
maskCase(
  'output = empty Buffer, offset 1, length 0',
  (args) => void ((args[2] = Buffer.alloc(0)), (args[3] = 1), (args[4] = 0)),
  'RangeError:offset'
);
maskCase(
  'output = empty DataView mid-buffer, offset 0, length 0',
  (args, c) => void ((args[2] = c.view(0, { Type: DataView })), (args[3] = 0), (args[4] = 0)),
  'ok'
);
maskCase(
  'output = empty view mid-buffer, offset 0, length 1',
  (args, c) => void ((args[2] = c.view(0)), (args[3] = 0), (args[4] = 1)),
  'RangeError:length'
);
unmaskCase('buffer = empty Uint8Array', (args) => void (args[0] = new Uint8Array(0)), 'ok');
unmaskCase('buffer = empty DataView mid-buffer', (args, c) => void (args[0] = c.view(0, { Type: DataView })), 'ok');
maskCase(
  'source at the very end of its buffer, length = all of it',
  (args, c) => void (args[0] = c.view(100, { atEnd: true })),
  'ok'
);
maskCase(
  'source at the very end of its buffer, length + 1',
  (args, c) => void ((args[0] = c.view(100, { atEnd: true })), (args[4] = 101)),
  'RangeError:length'
);
maskCase(
  'output at the very end of its buffer, writing up to its end',
  (args, c) => void (args[2] = c.view(110, { atEnd: true })),
  'ok'
);
maskCase(
  'output at the very end of its buffer, 1 byte past it',
  (args, c) => void (args[2] = c.view(109, { atEnd: true })),
  'RangeError:offset'
);
unmaskCase('buffer at the very end of its buffer', (args, c) => void (args[0] = c.view(100, { atEnd: true })), 'ok');
unmaskCase('buffer of 65 B at the very end of its buffer', (args, c) => void (args[0] = c.view(65, { atEnd: true })), 'ok');
maskCase('output = source, offset 0 (in place)', (args) => void ((args[2] = args[0]), (args[3] = 0)), 'ok');
/** Source and output of 100 B at byte offsets `from` and `to` of one buffer, offset 0. */
function overlapping(args, c, from, to) {
  const buffer = c.buffer(300);
  args[0] = new Uint8Array(buffer, from, 100);
  args[2] = new Uint8Array(buffer, to, 100);
  args[3] = 0;
}
maskCase('output starts 5 B into the source (forward overlap)', (args, c) => overlapping(args, c, 16, 21), 'ok');
maskCase(
  'output = source, offset 3 (forward overlap through offset)',
  (args, c) => {
    args[0] = args[2] = c.view(120);
    args[3] = 3;
  },
  'ok'
);
maskCase('output starts 5 B before the source (backward overlap)', (args, c) => overlapping(args, c, 21, 16), 'ok');
maskCase(
  'source and output: different view types over one buffer',
  (args, c) => {
    const buffer = c.buffer(300);
    args[0] = new Float64Array(buffer, 8, 13);
    args[2] = new DataView(buffer, 40, 120);
  },
  'ok'
);

// Keys that alias the bytes being written: the key is read before anything is written.
maskCase('key = the first 4 bytes of the output range', (args) => void (args[1] = args[2].subarray(10, 14)), 'ok');
maskCase('key = the source itself, in place', (args) => void ((args[1] = args[0]), (args[2] = args[0]), (args[3] = 0)), 'ok');
unmaskCase('key = the buffer itself', (args) => void (args[1] = args[0]), 'ok');
unmaskCase('key = the buffer itself, 8 B', (args, c) => void (args[1] = args[0] = c.view(8)), 'ok');

// --- SharedArrayBuffer, resizable ArrayBuffer and growable SharedArrayBuffer backings.
maskCase(
  'source and output on SharedArrayBuffers',
  (args, c) => {
    args[0] = c.view(100, { shared: true });
    args[2] = c.view(120, { shared: true, Type: DataView });
  },
  'ok'
);
maskCase(
  'in place on one SharedArrayBuffer',
  (args, c) => {
    args[0] = args[2] = c.view(120, { shared: true });
    args[3] = 0;
  },
  'ok'
);
unmaskCase('buffer on a SharedArrayBuffer', (args, c) => void (args[0] = c.view(100, { shared: true, Type: Int16Array })), 'ok');
unmaskCase(
  'buffer: length-tracking view on a growable SharedArrayBuffer, grown',
  (args, c) => {
    const buffer = c.buffer(100, { shared: true, maxByteLength: 400 });
    args[0] = new Uint8Array(buffer, 4);
    buffer.grow(160);
  },
  'ok'
);

for (const [label, Type] of [
  ['Uint8Array', Uint8Array],
  ['Uint16Array', Uint16Array],
  ['DataView', DataView],
]) {
  const resizable = (c, size = 200) => c.buffer(size, { maxByteLength: 400 });
  /**
   * A `Type` view from byte 8 of a resizable 200 B buffer (length-tracking, or `bytes` long) as `args[index]`,
   * the buffer then shrunk to `to` bytes; returns the undo.
   */
  const shrunk = (args, c, index, to, bytes) => {
    const buffer = resizable(c);
    args[index] = bytes === undefined ? new Type(buffer, 8) : new Type(buffer, 8, bytes / (Type.BYTES_PER_ELEMENT || 1));
    buffer.resize(to);
    return () => buffer.resize(200);
  };
  maskCase(
    `source: length-tracking ${label} on a resizable buffer`,
    (args, c) => {
      const buffer = resizable(c, 208);
      args[0] = new Type(buffer, 8);
      args[2] = c.view(210);
      args[4] = 200;
    },
    'ok'
  );
  unmaskCase(
    `buffer: length-tracking ${label} on a resizable buffer`,
    (args, c) => {
      args[0] = new Type(resizable(c), 8);
    },
    'ok'
  );
  // [case, which, view index, bytes left, fixed view length (else length-tracking), mask length, ...verdicts]
  for (const [caseOf, name, index, to, bytes, length, ...accepts] of [
    [maskCase, `source: length-tracking ${label}, buffer shrunk below length`, 0, 60, undefined, undefined, 'RangeError:length'],
    [maskCase, `source: length-tracking ${label}, buffer shrunk, length fits`, 0, 60, undefined, 52, 'ok'],
    [maskCase, `source: fixed ${label} out of bounds of its shrunk buffer, length 0`, 0, 40, 96, 0, 'ok'],
    [
      maskCase,
      `source: fixed ${label} out of bounds of its shrunk buffer, length 100`,
      0,
      40,
      100,
      undefined,
      'RangeError:length',
    ],
    [maskCase, `output: length-tracking ${label}, buffer shrunk below length`, 2, 100, undefined, undefined, 'RangeError:length'],
    [
      maskCase,
      `output: length-tracking ${label}, buffer shrunk below offset + length`,
      2,
      112,
      undefined,
      undefined,
      'RangeError:offset',
    ],
    [maskCase, `output: length-tracking ${label}, buffer shrunk, writes fit`, 2, 118, undefined, undefined, 'ok'],
    [maskCase, `output: fixed ${label} out of bounds of its shrunk buffer`, 2, 40, 120, undefined, 'RangeError:length'],
    [unmaskCase, `buffer: length-tracking ${label}, buffer shrunk`, 0, 100, undefined, undefined, 'ok'],
    [unmaskCase, `buffer: length-tracking ${label}, buffer shrunk below its offset`, 0, 4, undefined, undefined, 'ok'],
    [unmaskCase, `buffer: fixed ${label} out of bounds of its shrunk buffer`, 0, 40, 96, undefined, 'ok'],
  ]) {
    caseOf(
      name,
      (args, c) => {
        if (length !== undefined) args[4] = length;
        return shrunk(args, c, index, to, bytes);
      },
      ...accepts
    );
  }
}

// --- Detached backings (the view objects survive; their bytes are gone).
for (const [label, Type] of [
  ['Uint8Array', Uint8Array],
  ['Buffer', Buffer],
  ['Int32Array', Int32Array],
  ['DataView', DataView],
]) {
  const detached = (c, size) => {
    const view = c.view(size, { Type });
    detach(view.buffer);
    return view;
  };
  for (const [caseOf, name, index, size, set, ...accepts] of [
    [maskCase, `source = detached ${label}, length 0`, 0, 100, { 4: 0 }, 'ok'],
    [maskCase, `source = detached ${label}, length 100`, 0, 100, {}, 'RangeError:length'],
    [maskCase, `output = detached ${label}, offset 0, length 0`, 2, 120, { 3: 0, 4: 0 }, 'ok'],
    [maskCase, `output = detached ${label}, length 100`, 2, 120, {}, 'RangeError:length'],
    [unmaskCase, `buffer = detached ${label}`, 0, 100, {}, 'ok'],
  ]) {
    caseOf(name, (args, c) => void Object.assign(args, set, { [index]: detached(c, size) }), ...accepts);
  }
}

// --- Real views with spoofed own properties: the bytes are what count, never the properties.
const SPOOFS = [
  ['own length = 1e9', (view) => Object.defineProperty(view, 'length', { value: 1e9 })],
  [
    'own byteLength getter throws',
    (view) =>
      Object.defineProperty(view, 'byteLength', {
        get() {
          throw userError();
        },
      }),
  ],
  [
    'own length/byteLength = 0',
    (view) => {
      Object.defineProperty(view, 'length', { value: 0 });
      Object.defineProperty(view, 'byteLength', { value: 0 });
    },
  ],
  ['own byteOffset = 0 (really 16)', (view) => Object.defineProperty(view, 'byteOffset', { value: 0 })],
  ['own buffer = another ArrayBuffer', (view) => Object.defineProperty(view, 'buffer', { value: new ArrayBuffer(4096) })],
];
for (const [name, spoof] of SPOOFS) {
  for (const [label, Type] of [
    ['Uint8Array', Uint8Array],
    ['Int32Array', Int32Array],
  ]) {
    maskCase(`source = ${label}, ${name}`, (args, c) => spoof((args[0] = c.view(100, { Type }))), 'ok');
    maskCase(`output = ${label}, ${name}`, (args, c) => spoof((args[2] = c.view(120, { Type }))), 'ok');
    unmaskCase(`buffer = ${label}, ${name}`, (args, c) => spoof((args[0] = c.view(100, { Type }))), 'ok');
    unmaskCase(`buffer = ${label} 8 B, ${name}`, (args, c) => spoof((args[0] = c.view(8, { Type }))), 'ok');
    unmaskCase(`buffer = ${label} 300 B, ${name}`, (args, c) => spoof((args[0] = c.view(300, { Type }))), 'ok');
  }
  maskCase(`key = Uint8Array, ${name}`, (args, c) => spoof((args[1] = c.view(4))), 'ok');
}

// --- The addon's own entries, called directly: `addon.mask` / `addon.unmask` with the numbers as
// arguments, `addon.maskBlock` / `addon.unmaskBlock` with them in the block lib/tiers/native.js's addon adopted
// (the runner writes them there; every argument list is `(source, word, output, offset, length)` or
// `(buffer, word)`, and every edit below puts only numbers where the block holds one). They trust
// lib/checks.js for the words of errors, but must stay safe whatever they are given: a correct result, or
// their one generic refusal with nothing written.
const MASK_ENTRIES = ['addon.mask', 'addon.maskBlock'];
const UNMASK_ENTRIES = ['addon.unmask', 'addon.unmaskBlock'];
function wordCase(fn, name, edit, ...accepts) {
  cases.push({
    name: `${fn} ${name}`,
    fn,
    accepts,
    build(c) {
      const args = MASK_ENTRIES.includes(fn) ? [c.view(100), 0x04030201, c.view(120), 10, 100] : [c.view(100), 0x04030201];
      const after = edit(args, c);
      return { args, after };
    },
  });
}
const GOOD_WORDS = [
  ['0', 0],
  ['0x04030201', 0x04030201],
  ['-1', -1],
  ['-2^31', -(2 ** 31)],
  ['2^32 - 1', FOUR_GIB - 1],
  ['-0', -0],
];
const BAD_WORDS = [
  ['2^32', FOUR_GIB, 'Refused'],
  ['-2^31 - 1', -(2 ** 31) - 1, 'Refused'],
  ['1.5', 1.5, 'Refused'],
  ['NaN', NaN, 'Refused'],
  ['Infinity', Infinity, 'Refused'],
  ['2^53', 2 ** 53, 'Refused'],
];
for (const fn of [...MASK_ENTRIES, ...UNMASK_ENTRIES]) {
  for (const [name, word] of GOOD_WORDS) wordCase(fn, `key = ${name}`, (args) => void (args[1] = word), 'ok');
  for (const [name, word, error] of BAD_WORDS) wordCase(fn, `key = ${name}`, (args) => void (args[1] = word), error);
  const view = MASK_ENTRIES.includes(fn) ? 'source' : 'buffer';
  wordCase(fn, `${view} = {length: 1e9}`, (args) => void (args[0] = { length: 1e9 }), 'Refused');
  wordCase(fn, `${view} = undefined`, (args) => void (args[0] = undefined), 'Refused');
}
for (const fn of MASK_ENTRIES) {
  wordCase(fn, 'output = {length: 1e9}', (args) => void (args[2] = { length: 1e9 }), 'Refused');
  wordCase(fn, 'offset = 21: past the output by 1 byte', (args) => void (args[3] = 21), 'Refused');
  wordCase(fn, 'length = 101: past the source by 1 byte', (args) => void (args[4] = 101), 'Refused');
  wordCase(fn, 'length = 2^32 + 50', (args) => void (args[4] = FOUR_GIB + 50), 'Refused');
  wordCase(fn, 'offset = -1', (args) => void (args[3] = -1), 'Refused');
  wordCase(fn, 'offset = 0.5', (args) => void (args[3] = 0.5), 'Refused');
  wordCase(fn, 'length = NaN', (args) => void (args[4] = NaN), 'Refused');
  wordCase(fn, 'output = detached Uint8Array, length 100', (args) => void detach(args[2].buffer), 'Refused');
}
for (const fn of UNMASK_ENTRIES) {
  wordCase(
    fn,
    'buffer = fixed DataView out of bounds of its shrunk buffer',
    (args, c) => {
      const buffer = c.buffer(200, { maxByteLength: 400 });
      args[0] = new DataView(buffer, 8, 96);
      buffer.resize(40);
      return () => buffer.resize(200);
    },
    'ok',
    'Refused'
  );
}

// --- Two distinct SharedArrayBuffer objects over the same memory (`structuredClone(sab)`, a shared
// WebAssembly.Memory before and after `grow`): the output, a view of the second, starts at `gap` bytes from
// the source, a view of the first. Only addresses tell that they overlap; every tier must still give the
// forward loop's bytes (issue 15.3).
for (const length of [8, 200, 1000]) {
  for (const gap of [-3, 0, 1, 3, 4, 17]) {
    maskCase(
      `source and output over two SharedArrayBuffers of the same memory, ${length} B, output ${gap} B after`,
      (args, c) => {
        const shared = c.buffer(GUARD + length + 32 + GUARD, { shared: true });
        const alias = structuredClone(shared);
        args[0] = new Uint8Array(shared, GUARD + 8, length);
        args[2] = new Uint8Array(alias, GUARD + 8 + gap, length);
        args[3] = 0;
        args[4] = length;
      },
      'ok'
    );
  }
}
maskCase(
  'source and output over a shared WebAssembly.Memory before and after grow, output 1 B after',
  (args, c) => {
    if (typeof WebAssembly !== 'object') throw new MissingFeature('this runtime has no WebAssembly');
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 2, shared: true });
    const before = memory.buffer;
    memory.grow(1);
    const after = c.track(memory.buffer);
    new Uint8Array(after).set(new Uint8Array(c.buffer(4096)));
    args[0] = new Uint8Array(before, 64, 3000);
    args[2] = new Uint8Array(after, 65, 3000);
    args[3] = 0;
    args[4] = 3000;
  },
  'ok'
);

// --- Globals patched after load (issue 15.4): what a call relies on was captured when the package loaded,
// so each patch, in place for the length of the call, changes nothing.
function patched(target, name, value, edit) {
  return (args, c) => {
    const original = target[name];
    edit(args, c, original);
    target[name] = value(original);
    return () => void (target[name] = original);
  };
}
/** 1100 B, both sides 4-byte aligned: the JavaScript loop's words. */
function aligned1100(args, c) {
  args[0] = c.view(1100);
  args[2] = c.view(1200);
  args[3] = 20;
  args[4] = 1100;
}
maskCase(
  'Math.floor patched to 1e9, 1100 B aligned (the word loop)',
  patched(Math, 'floor', () => () => 1e9, aligned1100),
  'ok'
);
maskCase(
  'Int32Array patched to view the whole buffer, 1100 B aligned',
  patched(globalThis, 'Int32Array', (Words) => (buffer) => new Words(buffer), aligned1100),
  'ok'
);
for (const length of [8, 200, 1100]) {
  maskCase(
    `Uint8Array patched to view the whole buffer, output DataView, ${length} B`,
    patched(
      globalThis,
      'Uint8Array',
      (Bytes) => (buffer) => new Bytes(buffer),
      (args, c) => {
        args[0] = c.view(length);
        args[2] = c.view(length + 40, { Type: DataView });
        args[3] = 20;
        args[4] = length;
      }
    ),
    'ok'
  );
}
for (const length of [8, 200]) {
  maskCase(
    `Number.isInteger patched to () => true, offset 1.5, ${length} B`,
    patched(
      Number,
      'isInteger',
      () => () => true,
      (args, c) => {
        args[0] = c.view(length);
        args[2] = c.view(length + 20);
        args[3] = 1.5;
        args[4] = length;
      }
    ),
    'RangeError:offset'
  );
  maskCase(
    `Number.isInteger patched to () => true, length ${length}.5`,
    patched(
      Number,
      'isInteger',
      () => () => true,
      (args, c) => {
        args[0] = c.view(length + 1);
        args[2] = c.view(length + 20);
        args[4] = length + 0.5;
      }
    ),
    'RangeError:length'
  );
}
for (const [caseOf, name] of [
  [maskCase, 'source'],
  [unmaskCase, 'buffer'],
]) {
  const edit = patched(
    ArrayBuffer,
    'isView',
    () => () => true,
    (args) => void (args[0] = { length: 1e9 })
  );
  caseOf(`ArrayBuffer.isView patched to () => true, ${name} = {length: 1e9}`, edit, `TypeError:${name}`);
}
maskCase(
  'Array.isArray patched to () => true, key = array-like of 4',
  patched(
    Array,
    'isArray',
    () => () => true,
    (args) => {
      args[1] = { 0: 1, 1: 2, 2: 3, 3: 4, length: 4 };
    }
  ),
  'TypeError:mask'
);

// --- Immutable ArrayBuffers (issue 15.2), where the runtime has them (Node 26 with
// --js-immutable-arraybuffer): an immutable output or in-place buffer is refused at every size, nothing
// written; an immutable source or key is only read.
const HAS_IMMUTABLE = typeof ArrayBuffer.prototype.transferToImmutable === 'function';
/** A view of `byteLength` bytes of an immutable buffer with guards, as `Type`. */
function immutableView(c, byteLength, Type = Uint8Array) {
  if (!HAS_IMMUTABLE) throw new MissingFeature('this runtime has no immutable ArrayBuffers');
  const mutable = new ArrayBuffer(GUARD + byteLength + GUARD);
  new Uint8Array(mutable).set(new Uint8Array(c.buffer(mutable.byteLength)));
  const buffer = c.track(mutable.transferToImmutable());
  if (Type === DataView) return new DataView(buffer, GUARD, byteLength);
  if (Type === Buffer) return Buffer.from(buffer, GUARD, byteLength);
  return new Type(buffer, GUARD, byteLength / Type.BYTES_PER_ELEMENT);
}
for (const length of [0, 1, 8, 64, 200, 4096, 70000]) {
  for (const [label, Type] of [
    ['Uint8Array', Uint8Array],
    ['Buffer', Buffer],
    ['DataView', DataView],
  ]) {
    maskCase(
      `output = immutable ${label}, ${length} B`,
      (args, c) => {
        args[0] = c.view(length);
        args[2] = immutableView(c, length + 10, Type);
        args[3] = 10;
        args[4] = length;
      },
      'Immutable:output'
    );
    maskCase(
      `in place in an immutable ${label}, ${length} B`,
      (args, c) => {
        args[0] = args[2] = immutableView(c, length, Type);
        args[3] = 0;
        args[4] = length;
      },
      'Immutable:output'
    );
    unmaskCase(
      `buffer = immutable ${label}, ${length} B`,
      (args, c) => void (args[0] = immutableView(c, length, Type)),
      'Immutable:buffer'
    );
  }
  maskCase(
    `source = immutable Uint8Array, ${length} B`,
    (args, c) => {
      args[0] = immutableView(c, length);
      args[2] = c.view(length + 10);
      args[4] = length;
    },
    'ok'
  );
}
maskCase(
  'output = subarray of an immutable Buffer',
  (args, c) => void (args[2] = immutableView(c, 200, Buffer).subarray(40, 160)),
  'Immutable:output'
);
maskCase('key = immutable Uint8Array', (args, c) => void (args[1] = immutableView(c, 4)), 'ok');
unmaskCase('key = immutable Uint8Array', (args, c) => void (args[1] = immutableView(c, 4)), 'ok');
maskCase(
  'output = immutable, and offset out of range: the argument error first',
  (args, c) => {
    args[2] = immutableView(c, 120);
    args[3] = 21;
  },
  'RangeError:offset'
);
// Every other argument's error comes first too, as docs/safety.md says.
for (const [what, edit, accept] of [
  ['the source not a view', (args) => void (args[0] = 'not a view'), 'TypeError:source'],
  ['the key short', (args, c) => void (args[1] = c.view(3)), 'TypeError:mask'],
  ['a key element out of range', (args) => void (args[1] = [1, 2, 3, 256]), 'RangeError:mask[3]'],
  ['length past the source', (args) => void (args[4] = 101), 'RangeError:length'],
]) {
  maskCase(
    `output = immutable, and ${what}: the argument error first`,
    (args, c) => {
      args[2] = immutableView(c, 120);
      edit(args, c);
    },
    accept
  );
}
unmaskCase(
  'buffer = immutable, and the key short: the key error first',
  (args, c) => {
    args[0] = immutableView(c, 100);
    args[1] = c.view(3);
  },
  'TypeError:mask'
);

/** Why case `index` cannot run on this runtime (a feature it needs is missing), or undefined. */
function skipReason(index) {
  try {
    // A build may patch globals until its `after` runs.
    const { after } = cases[index].build(new Context(index + 1));
    if (typeof after === 'function') after();
  } catch (error) {
    if (error instanceof MissingFeature) return error.message;
    throw error;
  }
  return undefined;
}

module.exports = { cases, Context, skipReason };
