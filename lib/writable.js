// Not strict, on purpose: here a store into the view of an immutable ArrayBuffer is dropped instead of
// throwing, so whether a byte can be written is asked with a store and a load and no `try`, which V8
// optimizes less well around a short call (benchmark/README.md). Exports that probe, or undefined where
// this code runs strict after all (an ES module bundle): lib/checks.js then writes the byte back in a `try`.

/**
 * Whether a call sure to write `bytes[index .. index + length)` of a real Uint8Array may: byte `index` is
 * flipped, read back and restored (an immutable buffer keeps its byte). False when `length` is 0 or there
 * is no byte: then nothing is touched.
 */
function writable(bytes, index, length) {
  if (!(length > 0)) return false;
  const byte = bytes[index];
  if (byte === undefined) return false;
  bytes[index] = byte ^ 1;
  if (bytes[index] === byte) return false;
  bytes[index] = byte;
  return true;
}

const strict = (function () {
  return this === undefined;
})();

module.exports = strict ? undefined : writable;
