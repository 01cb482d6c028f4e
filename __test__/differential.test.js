'use strict';

// Randomized differential: 10^6 random mask/unmask calls of the native addon (lib/tiers/native.js) against the
// forward byte loop (random lengths, keys in every accepted form, every view type, distinct / in place /
// overlapping either way / separate buffers, ArrayBuffer and SharedArrayBuffer), then index.js, then the
// WebAssembly tier, then the addon capped at each lower SIMD level in child processes.

const { test } = require('node:test');
const assert = require('node:assert');
const { runDifferential } = require('./helpers/differential');
const { load } = require('./helpers/implementations');
const { runJSON } = require('./helpers/child');

const SEED = Number(process.env.DIFFERENTIAL_SEED) || 0x5eed;
// DIFFERENTIAL_SCALE=0.1 runs a tenth of every count: for emulated CPUs (scripts/rig/cross.js), not for CI
// here. Anything but a positive number runs the full count, as src/kernel/tests.rs reads it.
const ASKED_SCALE = Number(process.env.DIFFERENTIAL_SCALE);
const SCALE = ASKED_SCALE > 0 ? ASKED_SCALE : 1;
const scaled = (count) => Math.max(1, Math.round(count * SCALE));

test(`native addon vs the byte loop: ${scaled(1_000_000)} random cases`, (t) => {
  const native = load('native');
  const onArrayBuffer = runDifferential(native, { count: scaled(800_000), seed: SEED });
  const onShared = runDifferential(native, { count: scaled(200_000), seed: SEED + 1, shared: true });
  t.diagnostic(
    `backend ${native.backend}: ArrayBuffer ${JSON.stringify(onArrayBuffer)}; SharedArrayBuffer ${JSON.stringify(onShared)}`
  );
});

test(`index.js vs the byte loop: ${scaled(250_000)} random cases`, (t) => {
  const index = load('index');
  const counts = runDifferential(index, { count: scaled(250_000), seed: SEED + 2 });
  t.diagnostic(`index.js (${index.backend}): ${JSON.stringify(counts)}`);
});

test(`WebAssembly tier vs the byte loop: ${scaled(250_000)} random cases, as shipped and with every size through it`, (t) => {
  const wasm = load('wasm');
  const everySize = require('../lib/tiers/wasm').tier();
  // Chunks of 64 bytes: most cases take several trips through the scratch.
  const smallChunks = load('wasm-every-size');
  const counts = [
    runDifferential(wasm, { count: scaled(100_000), seed: SEED + 4 }),
    runDifferential(smallChunks, { count: scaled(100_000), seed: SEED + 5 }),
    runDifferential(everySize, { count: scaled(50_000), seed: SEED + 6, shared: true }),
  ];
  t.diagnostic(
    `as shipped ${JSON.stringify(counts[0])}; every size, 64 B chunks ${JSON.stringify(counts[1])}; every size, SharedArrayBuffer ${JSON.stringify(counts[2])}`
  );
});

test(`every level BUFFERUTIL_SIMD_LEVEL can ask for: ${scaled(100_000)} random cases each, in a child`, (t) => {
  // The addon's levels through its tier (every size reaches the kernel), wasm and js through index.js.
  const script = `
    const { load } = require('./__test__/helpers/implementations');
    const { runDifferential } = require('./__test__/helpers/differential');
    const index = load('index');
    const tested = ['wasm', 'js'].includes(index.backend) ? index : load('native');
    const counts = runDifferential(tested, { count: ${scaled(100_000)}, seed: ${SEED + 3} });
    process.stdout.write(JSON.stringify({ backend: index.backend, counts }));`;
  const seen = new Set([load('native').backend]);
  for (const level of ['avx2', 'sse2', 'neon', 'scalar', 'wasm', 'js']) {
    const { backend, counts } = runJSON(script, { env: { BUFFERUTIL_SIMD_LEVEL: level } });
    if (seen.has(backend)) continue; // a cap above what this CPU has falls back to a level already run
    assert.strictEqual(backend, level);
    seen.add(backend);
    t.diagnostic(`BUFFERUTIL_SIMD_LEVEL=${level}: ${JSON.stringify(counts)}`);
  }
  assert.ok(seen.has('scalar'), 'every CPU can be capped to scalar');
});
