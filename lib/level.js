'use strict';

// `BUFFERUTIL_SIMD_LEVEL`, read once per environment (a worker reads the `env` it was started with):
// `avx512`, `avx2`, `sse2`, `neon` or `scalar` cap the native addon's level, `wasm` means the WebAssembly
// tier (JavaScript where the runtime has no WebAssembly SIMD), `js` means JavaScript only.
// Case and surrounding space do not matter; an unknown name is ignored with a warning.

const LEVELS = ['avx512', 'avx2', 'sse2', 'neon', 'scalar', 'wasm', 'js'];

/** The requested level's name, lower case, or undefined when none is set or it cannot be read. */
function requestedLevel() {
  let value;
  try {
    // Deno without `--allow-env` throws here; a bundle for the browser may have no `process`.
    value = process.env.BUFFERUTIL_SIMD_LEVEL;
  } catch {
    return undefined;
  }
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const level = value.trim().toLowerCase();
  if (LEVELS.includes(level)) return level;
  if (typeof process.emitWarning === 'function') {
    process.emitWarning(`BUFFERUTIL_SIMD_LEVEL=${value} is not one of ${LEVELS.join(', ')}; ignored`);
  }
  return undefined;
}

module.exports = { requested: requestedLevel() };
