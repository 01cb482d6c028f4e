'use strict';

// Randomized differential (helpers/differential.js) of every tier against the forward byte loop; in child processes,
// each level BUFFERUTIL_SIMD_LEVEL selects: the addon capped lower, WebAssembly as shipped, JavaScript.

const { test } = require('node:test');
const assert = require('node:assert');
const { runDifferential } = require('./helpers/differential');
const { load } = require('./helpers/implementations');
const { runJSON } = require('./helpers/child');

const SEED = Number(process.env.DIFFERENTIAL_SEED) || 0x5eed;
// DIFFERENTIAL_SCALE=0.1 runs a tenth of every count: for emulated CPUs (scripts/rig/cross.js), not for CI
// here. Anything but a positive number runs the full count, as src/kernel/tests.rs reads it.
const SCALE = Math.max(0, Number(process.env.DIFFERENTIAL_SCALE)) || 1;
const scaled = (count) => Math.max(1, Math.round(count * SCALE));

for (const [label, name, count, seed, shared] of [
  ['native addon', 'native', 800_000, 0],
  ['native addon on a SharedArrayBuffer', 'native', 200_000, 1, true],
  ['index.js', 'index', 250_000, 2],
  // Chunks of 64 bytes: most cases take several trips through the scratch.
  ['WebAssembly tier, every size, 64 B chunks', 'wasm-every-size', 100_000, 5],
  ['WebAssembly tier, every size, on a SharedArrayBuffer', () => require('../lib/tiers/wasm').tier(), 50_000, 6, true],
]) {
  test(`${label} vs the byte loop: ${scaled(count)} random cases`, (t) => {
    const impl = typeof name === 'function' ? name() : load(name);
    const counts = runDifferential(impl, { count: scaled(count), seed: SEED + seed, shared });
    t.diagnostic(`${impl.backend}: ${JSON.stringify(counts)}`);
  });
}

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
