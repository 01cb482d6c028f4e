'use strict';

// Where each tier starts to beat the JavaScript loop, in bytes: a call below its size stays in lib/loops.js.
// One pair per runtime and tier, as benchmark/README.md ("The short-payload sizes") measures them; the addon
// on Node 20 and older has its own, where calls cost less and the crossover moves by more than a tenth.

const THRESHOLDS = {
  native: {
    node: { mask: 64, unmask: 56 },
    node20: { mask: 64, unmask: 48 },
    bun: { mask: 176, unmask: 208 },
    deno: { mask: 80, unmask: 72 },
  },
  wasm: {
    node: { mask: 48, unmask: 80 },
    bun: { mask: 640, unmask: 512 },
    deno: { mask: 64, unmask: 96 },
  },
};

const RUNTIME = typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : 'node';
const NODE_20 = RUNTIME === 'node' && Number(String(globalThis.process?.versions?.node).split('.')[0]) <= 20;

/** This runtime's sizes for each tier, `{ mask, unmask }`, and the table they come from. */
module.exports = {
  THRESHOLDS,
  NATIVE_FROM: THRESHOLDS.native[NODE_20 ? 'node20' : RUNTIME],
  WASM_FROM: THRESHOLDS.wasm[RUNTIME],
};
