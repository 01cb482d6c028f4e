'use strict';

// Where each tier starts to beat the JavaScript loop (below it a call stays in lib/loops.js), in bytes: one pair
// per runtime and tier, and the addon's on Node 20 and older. The addon's pairs are `npm run bench:thresholds`'s
// choice from the committed runs (benchmark/README.md, "Short-payload thresholds").

const THRESHOLDS = {
  native: {
    node: { mask: 80, unmask: 48 },
    node20: { mask: 56, unmask: 48 },
    bun: { mask: 224, unmask: 192 },
    deno: { mask: 128, unmask: 72 },
  },
  wasm: { node: { mask: 48, unmask: 80 }, bun: { mask: 640, unmask: 512 }, deno: { mask: 64, unmask: 96 } },
};

const RUNTIME = typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : 'node';

/** The addon's key in THRESHOLDS for `runtime` ('node', 'bun', 'deno') and, on Node, its major version. */
const nativeKey = (runtime, nodeMajor) => (runtime === 'node' && nodeMajor <= 20 ? 'node20' : runtime);
const NATIVE_KEY = nativeKey(RUNTIME, Number(globalThis.process?.versions?.node?.split('.')[0]));

/** This runtime's sizes for each tier, `{ mask, unmask }`, the table they come from and its addon key rule. */
module.exports = { THRESHOLDS, NATIVE_FROM: THRESHOLDS.native[NATIVE_KEY], WASM_FROM: THRESHOLDS.wasm[RUNTIME], nativeKey };
