'use strict';

// `BUFFERUTIL_SIMD_LEVEL`, read once: a native level the addon caps itself to, `wasm` or `js`, in any case; any
// other value is ignored with a warning. `BUFFERUTIL_SIMD_REQUIRE_NATIVE=1`: no addon warns, then throws (lib/choose.js).

/** The names it takes: the addon's `levels`, lowest first (__test__/loader.test.js holds them equal), then the JavaScript tiers. */
const NAMES = ['scalar', 'sse2', 'neon', 'avx2', 'avx512', 'wasm', 'js'];

let value;
let requireNative = false;
try {
  // Deno without `--allow-env` throws here; a bundle for the browser may have no `process`.
  value = process.env.BUFFERUTIL_SIMD_LEVEL;
  requireNative = process.env.BUFFERUTIL_SIMD_REQUIRE_NATIVE === '1';
} catch {}
const level = typeof value === 'string' ? value.trim().toLowerCase() : '';
const known = NAMES.includes(level);
if (level !== '' && !known) {
  process.emitWarning?.(`BUFFERUTIL_SIMD_LEVEL=${level} is not one of ${NAMES.join(', ')}; ignored`);
}

/** `requested`: the level, lower case, or undefined when none is set, it cannot be read or it is no name. */
module.exports = { requested: known ? level : undefined, requireNative, NAMES };
