'use strict';

// Where each tier starts to beat the JavaScript loop, in bytes (`npm run bench`, benchmark/README.md):
// it moves with the engine's call cost and the CPU's speed in that loop, so it is keyed on Bun, Deno, or Node's
// major version (the nearest line below), and for the addon on who made the CPU (its `vendor`). NATIVE comes
// from AMD Zen 4 and is the default for a CPU not measured; NATIVE_INTEL, from a Sapphire Rapids, serves every Intel.

const NATIVE = {
  bun: { mask: 176, unmask: 208 },
  20: { mask: 64, unmask: 48 },
  22: { mask: 80, unmask: 72 },
};

const NATIVE_INTEL = { bun: NATIVE.bun, 20: NATIVE[20], 22: { mask: 64, unmask: 56 } };

const WASM = {
  bun: { mask: 640, unmask: 512 },
  deno: { mask: 64, unmask: 96 },
  node: { mask: 48, unmask: 80 },
};

const RUNTIME = typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : 'node';
// Deno reports the Node version it is compatible with.
const NODE_MAJOR = Number(String(globalThis.process?.versions?.node).split('.')[0]);

/** The addon tier's sizes on a CPU of `vendor` ('intel', 'amd' or 'other'): Bun's, or the nearest Node line below. */
function nativeFrom(vendor) {
  const table = vendor === 'intel' ? NATIVE_INTEL : NATIVE;
  if (RUNTIME === 'bun') return table.bun;
  return table[Math.max(...Object.keys(table).filter((line) => Number(line) <= NODE_MAJOR), 20)];
}

module.exports = { nativeFrom, WASM_FROM: WASM[RUNTIME] };
