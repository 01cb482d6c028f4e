'use strict';

// Which tier an entry gets: as BUFFERUTIL_SIMD_LEVEL says, else the addon, WebAssembly SIMD or JavaScript, first that loads.

const { requested, requireNative } = require('./level');
const { NATIVE_FROM, WASM_FROM } = require('./thresholds');
const { toBytes, typedArrayLength } = require('./views');

let debug = () => {};
let counting = false;
try {
  debug = require('node:util').debuglog('bufferutil-simd');
  // Bun's debuglog has no `enabled`: NODE_DEBUG read as Node and Bun read it, comma-separated, any case, `*` any run.
  const names = () => String(process.env.NODE_DEBUG).replace(/[^\w-]/g, (c) => ({ '*': '.*', ',': '|' })[c] ?? `\\${c}`);
  counting = debug.enabled ?? new RegExp(`^(${names()})$`, 'i').test('bufferutil-simd');
} catch {}

function choose(loadNative) {
  const levelSaysNoAddon = requested === 'wasm' || requested === 'js';
  let why = levelSaysNoAddon ? `BUFFERUTIL_SIMD_LEVEL=${requested}` : 'this entry loads no addon (portable.js)';
  if (!levelSaysNoAddon && loadNative !== undefined) {
    try {
      const native = loadNative();
      debug('tier %s: addon %s', native.backend, native.file);
      return native.tier(NATIVE_FROM);
    } catch (error) {
      why = error;
    }
  }
  debug('no addon: %s', why?.message ?? why);
  let tier;
  try {
    if (requested !== 'js') tier = require('./tiers/wasm').tier(WASM_FROM);
  } catch (error) {
    debug('no WebAssembly SIMD: %s', error?.message ?? error);
  }
  tier ??= require('./tiers/fallback').tier();
  debug('tier %s', tier.backend);
  return withoutAddon(tier, why);
}

/** `tier`, without the addon for `why` (a reason or the loader's error): thrown if required, warned of if lost. */
function withoutAddon(tier, why) {
  const code = 'BUFFERUTIL_SIMD_NO_ADDON';
  const runs =
    `bufferutil-simd runs on ${tier.backend === 'wasm' ? 'WebAssembly' : 'JavaScript'}, slower than bufferutil for large ` +
    `payloads: ${why?.message ?? why}`;
  if (requireNative) {
    // Warned of first, so that a caller that catches the throw (ws does) still leaves a trace.
    const message = `BUFFERUTIL_SIMD_REQUIRE_NATIVE=1, but ${runs}`;
    const caught = `The load threw this (code ${code}): a caller that caught it, as ws does, runs without bufferutil-simd.`;
    process.emitWarning(`${message}\n  ${caught}`, { code: 'BUFFERUTIL_SIMD_REQUIRE_NATIVE' });
    throw Object.assign(new Error(message), { code });
  }
  if (why?.code === code) {
    // --disable-warning only where this runtime takes it (Node 20.11 and 21.3 on, Bun).
    const flag = process.allowedNodeEnvironmentFlags?.has('--disable-warning') ? `, or --disable-warning=${code}` : '';
    process.emitWarning(`${runs}\n  To silence this: BUFFERUTIL_SIMD_LEVEL=wasm${flag}.`, { code });
  }
  return tier;
}

/** The tier, counting the mask and unmask calls and bytes that reach it, said at exit: only under NODE_DEBUG. */
function counted(tier) {
  const count = [0, 0, 0, 0];
  process.on('exit', () => debug('tier %s at exit: mask %d calls, %d B; unmask %d calls, %d B', tier.backend, ...count));
  return {
    backend: tier.backend,
    mask(source, mask, output, offset, length) {
      count[0]++;
      tier.mask(source, mask, output, offset, length);
      count[1] += length;
    },
    unmask(buffer, mask) {
      count[2]++;
      tier.unmask(buffer, mask);
      count[3] += typedArrayLength(toBytes(buffer));
    },
  };
}

/** The package's exports, `{ mask, unmask, backend }`; `loadNative` returns lib/tiers/native.js or throws. */
module.exports = (loadNative) => (counting ? counted(choose(loadNative)) : choose(loadNative));
