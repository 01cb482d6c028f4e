// Not strict, on purpose: a store into an immutable buffer is dropped instead of throwing, so a store and a
// load ask without a `try`, which V8 optimizes less well around a short call. Where it runs strict after all
// (an ES module bundle), that store throws: lib/views.js then asks in a `try`.

/** Whether `bytes[index .. index + length)` may be written: byte `index` flipped, read back and restored. */
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

module.exports = { writable, strict };
