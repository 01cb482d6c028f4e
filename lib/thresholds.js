'use strict';

// Where each tier starts to beat the JavaScript loop, in bytes (`npm run bench`, benchmark/README.md): it moves
// with the engine's call cost, so it is keyed on Bun, Deno, or Node's major version (the nearest line below).

const NATIVE = {
  bun: { mask: 176, unmask: 208 },
  20: { mask: 64, unmask: 48 },
  22: { mask: 80, unmask: 72 },
  24: { mask: 80, unmask: 80 },
  26: { mask: 80, unmask: 72 },
};

const WASM = {
  bun: { mask: 640, unmask: 512 },
  deno: { mask: 128, unmask: 192 },
  node: { mask: 64, unmask: 128 },
};

const RUNTIME = typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : 'node';
// Deno reports the Node version it is compatible with.
const NODE_MAJOR = Number(String(globalThis.process?.versions?.node).split('.')[0]);
const NODE_LINE = Math.max(...Object.keys(NATIVE).filter((line) => Number(line) <= NODE_MAJOR), 20);

module.exports = { NATIVE_FROM: NATIVE[RUNTIME === 'bun' ? 'bun' : NODE_LINE], WASM_FROM: WASM[RUNTIME] };
