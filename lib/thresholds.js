'use strict';

// Where each tier starts to beat the JavaScript loop, in bytes, per runtime: below these sizes a call stays
// in JavaScript. Measured with `npm run bench:interleaved` (addon) and `npm run bench:wasm -- --crossover` (WebAssembly);
// see benchmark/README.md. The crossover moves with each engine's call cost, so it is keyed on what is known
// at load: Bun, Deno, or Node's major version (the nearest line below for one not listed).

/** From these sizes the native addon beats fallback.js's loop. */
const NATIVE_FROM = {
  bun: { mask: 176, unmask: 208 },
  20: { mask: 64, unmask: 48 },
  22: { mask: 80, unmask: 72 },
  24: { mask: 80, unmask: 80 },
  26: { mask: 80, unmask: 72 },
};

/**
 * From these sizes the WebAssembly module beats fallback.js's loop (Node 20-26: masks at 64 B, unmask at
 * 96-128 B; Deno's loop is quicker in place; each call to an engine accessor, which the copies need, costs
 * ~30-40 ns more in Bun's JavaScriptCore).
 */
const WASM_FROM = {
  bun: { mask: 640, unmask: 512 },
  deno: { mask: 128, unmask: 192 },
  node: { mask: 64, unmask: 128 },
};

function runtime() {
  if (typeof Bun !== 'undefined') return 'bun';
  if (typeof Deno !== 'undefined') return 'deno';
  return 'node';
}

function nativeFrom() {
  const name = runtime();
  if (name === 'bun') return NATIVE_FROM.bun;
  // Deno reports the Node version it is compatible with.
  const major = Number(String(globalThis.process?.versions?.node).split('.')[0]);
  const lines = Object.keys(NATIVE_FROM).map(Number).filter((line) => line <= major);
  return NATIVE_FROM[lines.length ? Math.max(...lines) : 20];
}

/**
 * A tier's `backendFrom`: per operation, the smallest payload (bytes) each backend takes, for Uint8Arrays
 * (Buffers) and a Uint8Array key: `{ mask: { js: 0, avx2: 80 }, unmask: { js: 0, avx2: 72 } }`. `from`
 * gives where `backend` takes over from the JavaScript loop; without it, `backend` serves every size.
 */
function backendFrom(backend, from) {
  const sizes = (at) => Object.freeze(at > 0 ? { js: 0, [backend]: at } : { [backend]: 0 });
  return Object.freeze({ mask: sizes(from?.mask), unmask: sizes(from?.unmask) });
}

module.exports = { nativeFrom: nativeFrom(), wasmFrom: WASM_FROM[runtime()], backendFrom };
