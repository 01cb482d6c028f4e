'use strict';

// What handing calls to Node 26's `http.websocketMask` would cost if it kept this package's promises: a
// measurement for `side-by-side.js --guarded-core`, never shipped.
//
// Core's JavaScript wrapper reads `source.byteLength`, `output.byteLength` and `key.byteLength` as
// properties, and its C++ asserts on what it then finds. Checking offset and length against the true
// sizes first is not enough: a getter that runs during one of those reads can detach the buffer or shrink
// a resizable one, and the assertion aborts the process (26.12.1: `Assertion failed: (length) <= (source_length)`).
// So a safe hand-over must prove, on every call, that each of those reads reaches the engine's own
// accessor: the view's prototype is Buffer.prototype or Uint8Array.prototype, it has no own `byteLength`,
// and the chain above is untouched. The key needs no proof: core gets a private copy whose prototype is
// frozen. What follows is the cheapest such proof found; every part of it is needed.

const { getPrototypeOf, hasOwn, getOwnPropertyDescriptor, freeze, create, setPrototypeOf } = Object;
const { isInteger } = Number;
const { isUint8Array } = require('node:util').types;

const uncurry = Function.prototype.bind.bind(Function.prototype.call);
const BufferPrototype = Buffer.prototype;
const Uint8ArrayPrototype = Uint8Array.prototype;
const TypedArrayPrototype = getPrototypeOf(Uint8ArrayPrototype);
const byteLengthGetter = getOwnPropertyDescriptor(TypedArrayPrototype, 'byteLength').get;
const typedArrayBuffer = uncurry(getOwnPropertyDescriptor(TypedArrayPrototype, 'buffer').get);
const typedArrayByteLength = uncurry(byteLengthGetter);
const typedArrayByteOffset = uncurry(getOwnPropertyDescriptor(TypedArrayPrototype, 'byteOffset').get);

/** Whether reading `byteLength` on Buffers and Uint8Arrays still runs only the engine's accessor. */
function chainIntact() {
  return (
    getPrototypeOf(BufferPrototype) === Uint8ArrayPrototype &&
    getPrototypeOf(Uint8ArrayPrototype) === TypedArrayPrototype &&
    !hasOwn(BufferPrototype, 'byteLength') &&
    !hasOwn(Uint8ArrayPrototype, 'byteLength') &&
    getOwnPropertyDescriptor(TypedArrayPrototype, 'byteLength')?.get === byteLengthGetter
  );
}

/** Whether `view.byteLength` reaches the chain `chainIntact` vouches for. */
function plainView(view) {
  const prototype = getPrototypeOf(view);
  return (prototype === BufferPrototype || prototype === Uint8ArrayPrototype) && !hasOwn(view, 'byteLength');
}

function guardedCore(http) {
  const { websocketMask } = http;
  // Core reads only `byteLength` and the 4 bytes of this key: a frozen prototype of our own answers it.
  const key = new Uint8Array(4);
  setPrototypeOf(key, freeze(create(null, { byteLength: { get: byteLengthGetter } })));
  const refuse = () => {
    throw new Error('guarded-core measures the common case only');
  };
  const ready = (mask) => {
    if (!(isUint8Array(mask) && mask[3] !== undefined)) return false;
    key[0] = mask[0];
    key[1] = mask[1];
    key[2] = mask[2];
    key[3] = mask[3];
    return chainIntact();
  };
  return {
    mask(source, mask, output, offset, length) {
      const valid =
        isUint8Array(source) &&
        isUint8Array(output) &&
        isInteger(offset) &&
        isInteger(length) &&
        offset >= 0 &&
        length >= 0 &&
        (length === 0 || (source[length - 1] !== undefined && output[offset + length - 1] !== undefined));
      if (!valid || !ready(mask) || !plainView(source) || (output !== source && !plainView(output))) refuse();
      // Core's result is memmove's: only where the output does not start inside the source is it the loop's.
      if (source !== output || offset !== 0) {
        const sameBuffer = typedArrayBuffer(source) === typedArrayBuffer(output);
        const gap = typedArrayByteOffset(output) + offset - typedArrayByteOffset(source);
        if (sameBuffer && gap > 0 && gap < length) refuse();
      }
      websocketMask(source, key, output, offset, length);
    },
    unmask(buffer, mask) {
      if (!isUint8Array(buffer) || !ready(mask) || !plainView(buffer)) refuse();
      // The 5-argument form: `websocketUnmask` would take the length from `buffer.byteLength` as well.
      websocketMask(buffer, key, buffer, 0, typedArrayByteLength(buffer));
    },
  };
}

module.exports = { guardedCore };
