'use strict';

// Which tier an entry gets: as BUFFERUTIL_SIMD_LEVEL says, else the addon, WebAssembly SIMD or JavaScript, first that loads.

const { requested, requireNative } = require('./level');
const { NATIVE_FROM, WASM_FROM } = require('./thresholds');
const { toBytes, typedArrayLength } = require('./views');

const { apply: reflectApply } = Reflect;

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

/** The tier's entries, in its order and of its kinds, counting the mask and unmask calls and bytes that reach them: said
 * at exit and at a SIGINT or SIGTERM (not on Windows, where a signal cannot be raised again as it came), only under
 * NODE_DEBUG. Not counted: calls in an 'exit' listener added after load (it runs after the package's); a Worker
 * stopped by terminate() says nothing. */
function counted(tier) {
  const count = { mask: [0, 0], unmask: [0, 0] };
  const bytes = { mask: (args) => args[4], unmask: (args) => typedArrayLength(toBytes(args[0])) };
  const say = (at) =>
    debug('tier %s at %s: mask %d calls, %d B; unmask %d calls, %d B', tier.backend, at, ...count.mask, ...count.unmask);
  process.on('exit', () => say('exit'));
  // First to hear the signal, said, then out of the way: the app's own listeners decide as if there were none of
  // ours; with none, the signal is raised again at its default (Node starts with it), which ends the process.
  for (const signal of process.platform === 'win32' ? [] : ['SIGINT', 'SIGTERM']) {
    process.prependListener(signal, function heard() {
      say(signal);
      process.removeListener(signal, heard);
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
  const entries = Object.entries(tier).map(([name, entry]) => {
    if (typeof entry !== 'function') return [name, entry];
    const apply = (call, self, args) => {
      count[name][0]++;
      const result = reflectApply(call, self, args);
      count[name][1] += bytes[name](args);
      return result;
    };
    // A Proxy keeps the entry's name, length and whether it constructs.
    return [name, new Proxy(entry, { apply })];
  });
  return Object.fromEntries(entries);
}

/** The package's exports, `{ mask, unmask, backend }`; `loadNative` returns lib/tiers/native.js or throws. */
module.exports = (loadNative) => (counting ? counted(choose(loadNative)) : choose(loadNative));
