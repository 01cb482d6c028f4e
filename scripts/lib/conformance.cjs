'use strict';

// The checks every runtime and platform must pass, against each `[label, { mask, unmask }]` given (the
// package, its addon, its WebAssembly tier); returns the failures. Self-contained: copied into the project
// where the package is installed and run there by lib/probe.cjs.

module.exports = function conformance(apis) {
  const failures = [];
  const check = (what, ok) => ok || failures.push(what);
  let seed = 0x9e3779b9;
  const random = (n) => {
    const bytes = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      bytes[i] = seed >>> 24;
    }
    return bytes;
  };
  const xor = (bytes, key) => {
    const out = new Uint8Array(bytes.length);
    for (let i = 0; i < bytes.length; i++) out[i] = bytes[i] ^ key[i & 3];
    return out;
  };
  const bytesOf = (view) => new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const same = (a, b) => {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  };
  const throws = (what, Kind, code, call) => {
    try {
      call();
      failures.push(`${what}: did not throw`);
    } catch (error) {
      if (!(error instanceof Kind) || error.code !== code)
        failures.push(`${what}: threw ${error?.name} ${error?.code}: ${error?.message}`);
    }
  };
  // Every size to 300 B (each side of every tier's switch and SIMD width), then to where the x86-64 kernel streams.
  const sizes = [...Array(301).keys(), 1023, 1024, 1025, 4096 + 7, 65535, 65536 + 3, 2 ** 20 + 5, 8 * 2 ** 20 + 13];
  // The key forms ws and undici pass (a Buffer, an Array of numbers), and a plain Uint8Array.
  const keyForms = [(key) => key, (key) => Array.from(key), (key) => (globalThis.Buffer ? globalThis.Buffer.from(key) : key)];

  for (const [label, api] of apis) {
    for (const n of sizes) {
      const keyBytes = random(4);
      const key = keyForms[n % 3](keyBytes);
      const skew = n % 7;
      const source = new Uint8Array(random(n + skew).buffer, skew, n);
      const expected = xor(source, keyBytes);

      const offset = n % 13;
      const framed = new Uint8Array(offset + n + 16).fill(0xa5);
      api.mask(source, key, framed, offset, n);
      check(`${label} mask ${n} B to offset ${offset}`, same(framed.subarray(offset, offset + n), expected));
      const outside = [...framed.subarray(0, offset), ...framed.subarray(offset + n)];
      check(
        `${label} mask ${n} B wrote outside its output`,
        outside.every((byte) => byte === 0xa5)
      );

      const inPlace = source.slice();
      api.mask(inPlace, key, inPlace, 0, n);
      check(`${label} mask ${n} B in place`, same(inPlace, expected));
      api.unmask(inPlace, keyForms[(n + 1) % 3](keyBytes));
      check(`${label} unmask ${n} B back`, same(inPlace, source));
    }

    // Views that are not plain Uint8Arrays, at offsets that are not multiples of 4 or 8.
    const key = [0x81, 0x3c, 0xf5, 0x0e];
    const n = 200;
    const arena = new ArrayBuffer(1024);
    const views = [
      ['Uint8Array at +1', () => new Uint8Array(arena, 1, n)],
      ['Int16Array at +2', () => new Int16Array(arena, 2, n / 2)],
      ['Float64Array at +8', () => new Float64Array(arena, 8, n / 8)],
      ['DataView at +3', () => new DataView(arena, 3, n)],
    ];
    for (const [name, make] of views) {
      const view = make();
      const bytes = bytesOf(view);
      bytes.set(random(n));
      const source = bytes.slice();
      api.unmask(view, key);
      check(`${label} unmask ${name}`, same(bytes, xor(source, key)));
      api.mask(view, new DataView(new Uint8Array(key).buffer), view, 0, n);
      check(`${label} mask ${name} in place, DataView key`, same(bytes, source));
      const out = new DataView(new ArrayBuffer(n + 7), 5, n + 2);
      api.mask(view, new Uint16Array(new Uint8Array(key).buffer), out, 1, n);
      check(`${label} mask ${name} into a DataView at 1`, same(new Uint8Array(out.buffer, 6, n), xor(source, key)));
    }

    // Errors: the same types and codes on every runtime, nothing written.
    const target = new Uint8Array(100).fill(7);
    throws(`${label} mask of a string`, TypeError, 'ERR_INVALID_ARG_TYPE', () => api.mask('x'.repeat(100), key, target, 0, 100));
    throws(`${label} unmask of an ArrayBuffer`, TypeError, 'ERR_INVALID_ARG_TYPE', () => api.unmask(new ArrayBuffer(100), key));
    throws(`${label} unmask of an object`, TypeError, 'ERR_INVALID_ARG_TYPE', () => api.unmask({ length: 100 }, key));
    throws(`${label} 3-byte key`, TypeError, 'ERR_INVALID_ARG_VALUE', () => api.unmask(target, new Uint8Array(3)));
    throws(`${label} offset past the end`, RangeError, 'ERR_OUT_OF_RANGE', () => api.mask(random(100), key, target, 10, 100));
    throws(`${label} key byte 256`, RangeError, 'ERR_OUT_OF_RANGE', () => api.unmask(target, [1, 2, 3, 256]));
    check(
      `${label} wrote after throwing`,
      target.every((b) => b === 7)
    );
  }
  return failures;
};
