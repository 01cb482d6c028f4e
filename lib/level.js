'use strict';

// `BUFFERUTIL_SIMD_LEVEL`, read once per environment: `wasm`, `js`, or a native level the addon caps itself to
// (lib/tiers/native.js warns about a name it does not know). Case and surrounding space do not matter.

let value;
try {
  // Deno without `--allow-env` throws here; a bundle for the browser may have no `process`.
  value = process.env.BUFFERUTIL_SIMD_LEVEL;
} catch {}
const level = typeof value === 'string' ? value.trim().toLowerCase() : '';

/** `requested`: the level, lower case, or undefined when none is set or it cannot be read. */
module.exports = { requested: level === '' ? undefined : level, JS_TIERS: ['wasm', 'js'] };
