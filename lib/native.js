'use strict';

// The native tier: loads this platform's addon, chooses the level this environment asks for
// (lib/level.js) and routes calls to it (lib/tier.js); throws when no addon loads, and index.js then picks
// another tier.
//
// Where the addon is looked for: the file `npm run build` leaves in a clone's root, then the platform
// package npm installs as an optional dependency, both resolved at run time from where this code runs
// (lib/ in the package, or a bundle of it). An addon is opened only when its package is this version, and
// used only when it reports the interface this JavaScript expects (lib/version.js); when one is passed
// over and none loads, a warning (BUFFERUTIL_SIMD_ADDON_MISMATCH) says which and why.

const { createRequire } = require('node:module');
const { dirname } = require('node:path');
const { requested, JS_TIERS } = require('./level');
const { MAY_BE_IMMUTABLE, hasExactly, isByteKey, isUint8Array, keyWord, withCode, writable } = require('./checks');
const { tier, NO_SHORT } = require('./tier');
const { xorKeyWord } = require('./loops');
const { NATIVE_FROM } = require('./thresholds');
const { version: VERSION, addonInterface: INTERFACE } = require('./version');

const NAME = 'bufferutil-simd';
const STALE = 'ERR_BUFFERUTIL_SIMD_STALE_ADDON';
const { platform, arch } = process;

/** The napi-rs names of this platform's builds, most likely first (on Windows the GNU build, which x64 ships). */
function platformNames(os = platform, cpu = arch) {
  if (os === 'linux') return (cpu === 'arm' ? ['gnueabihf', 'musleabihf'] : ['gnu', 'musl']).map((abi) => `linux-${cpu}-${abi}`);
  if (os === 'win32') return [`win32-${cpu}-gnu`, `win32-${cpu}-msvc`];
  return [os === 'darwin' ? `darwin-${cpu}` : `${os}-${cpu}`];
}

/**
 * Node's `require` as it resolves from this file or the bundle made of it, made at run time so that no
 * bundler takes the requests below for its own. An ES module bundle has no `__filename`: there, the
 * `require` in scope (esbuild's shim for the usual `createRequire(import.meta.url)` banner) or none.
 */
function runtimeRequire() {
  if (typeof __filename === 'string' && __filename !== '') return createRequire(__filename);
  return typeof __webpack_require__ === 'function' ? undefined : typeof require === 'function' ? require : undefined;
}

const firstLine = (error) => String(error?.message ?? error).split('\n')[0];

/**
 * Requires that resolve from this package's own folder, found by either name it is installed under
 * (`bufferutil-simd`, or `bufferutil` for ws): in a pnpm project a bundle reaches the platform package
 * only from there.
 */
function packageRequires(find) {
  const requires = [];
  for (const id of [NAME, 'bufferutil']) {
    try {
      const at = find.resolve(`${id}/package.json`);
      if (find(at).name === NAME) requires.push(createRequire(at));
    } catch {}
  }
  return requires;
}

/** `pkg`'s package.json as the first of `requires` that finds it resolves it, or the first error. */
function locate(pkg, requires) {
  let first;
  for (const req of requires) {
    try {
      const at = req.resolve(`${pkg}/package.json`);
      return { req, at, version: req(at).version };
    } catch (error) {
      first ??= error;
    }
  }
  return { error: first };
}

function load() {
  const errors = [];
  const mismatches = [];
  /** The addon `id` from `req`, if it has this interface; notes why not otherwise. */
  const open = (label, req, id, version) => {
    let file;
    try {
      file = req.resolve(id);
      const addon = req(file);
      // Its entries check bounds but not immutability (Node-API cannot tell): only this module holds
      // them, so the file leaves require's cache (a load of it elsewhere gets entries of its own).
      if (req.cache) delete req.cache[file];
      if (addon.interface === INTERFACE && typeof addon.level === 'function') return { addon, file };
      throw withCode(
        new Error(`addon interface ${addon.interface}, not ${INTERFACE} (built from other sources): not used`),
        STALE
      );
    } catch (error) {
      if (error?.code === STALE) mismatches.push({ pkg: label, version: `${version}, ${error.message}`, dir: dirname(file) });
      errors.push(`${label}: ${firstLine(error)}`);
    }
  };
  const find = runtimeRequire();
  let fromPackage;
  function* requires() {
    yield find;
    fromPackage ??= packageRequires(find);
    yield* fromPackage;
  }
  for (const name of typeof find === 'function' ? platformNames() : []) {
    // A clone's own build, only beside this package's manifest at this version (beside a bundle, `..` is
    // someone else's folder).
    const local = `../${NAME}.${name}.node`;
    let manifest;
    try {
      find.resolve(local);
      manifest = find('../package.json');
    } catch (error) {
      errors.push(`${local}: ${firstLine(error)}`);
    }
    if (manifest?.name === NAME && manifest.version === VERSION) {
      const opened = open(local, find, local, VERSION);
      if (opened) return opened;
    } else if (manifest) {
      errors.push(`${local}: not beside ${NAME}@${VERSION}'s package.json (found ${manifest.name}@${manifest.version})`);
    }

    const pkg = `${NAME}-${name}`;
    const found = locate(pkg, requires());
    if (found.error) {
      errors.push(`${pkg}: ${firstLine(found.error)}`);
    } else if (found.version !== VERSION) {
      mismatches.push({ pkg, version: found.version, dir: dirname(found.at) });
      errors.push(`${pkg}: version ${found.version}, not ${VERSION}: not loaded`);
    } else {
      const opened = open(pkg, found.req, dirname(found.at), found.version);
      if (opened) return opened;
    }
  }
  if (typeof find !== 'function') errors.push('no require() to find an addon with in this bundle');
  const error = withCode(
    new Error(`No ${NAME} addon loads on ${platform}-${arch}:\n  ${errors.join('\n  ')}`),
    'ERR_BUFFERUTIL_SIMD_NO_ADDON'
  );
  if (mismatches.length) {
    Object.defineProperty(error, 'mismatches', { value: mismatches, enumerable: true });
    const found = mismatches.map(({ pkg, version, dir }) => `${pkg} ${version} (${dir})`).join(' and ');
    const wanted = mismatches.map(({ pkg }) => `${pkg}@${VERSION}`).join(' or ');
    process.emitWarning?.(
      `${NAME} ${VERSION} did not load ${found}: an addon of another version or build may not match this JavaScript, ` +
        `so it runs without its addon. Install ${wanted} where this code runs, or leave ${NAME} out of the bundle.`,
      { code: 'BUFFERUTIL_SIMD_ADDON_MISMATCH' }
    );
  }
  throw error;
}

const { addon, file } = load();
const NATIVE_LEVELS = String(addon.levels).split(',');
const LEVELS = [...NATIVE_LEVELS, ...JS_TIERS];
if (requested !== undefined && !LEVELS.includes(requested)) {
  process.emitWarning?.(`BUFFERUTIL_SIMD_LEVEL=${requested} is not one of ${LEVELS.join(', ')}; ignored`);
}
// The environment's level, chosen here unless another copy of the package chose it first.
const backend = addon.level(requested);
const { mask: maskWith, maskBlock, unmask: unmaskWith, unmaskBlock } = addon;
// Where offset, length and key word reach the addon without a Node-API call each: a Float64Array over a
// SharedArrayBuffer only this module holds, which no one can detach or move (src/binding/block.rs). The
// addon adopts one per environment; where another copy of the package took it first, numbers go as
// arguments.
const offered = typeof SharedArrayBuffer === 'function' ? new Float64Array(new SharedArrayBuffer(32)) : undefined;
const block = offered !== undefined && addon.useBlock(offered) === true ? offered : undefined;
const maskFast =
  block === undefined
    ? maskWith
    : (source, output, offset, length, word) => {
        block[0] = offset;
        block[1] = length;
        block[2] = word;
        maskBlock(source, output);
      };
const unmaskFast =
  block === undefined
    ? unmaskWith
    : (buffer, word) => {
        block[2] = word;
        unmaskBlock(buffer);
      };

/**
 * The tier over the addon. Numbers and a byte key go straight to the addon, which looks up the views
 * itself and refuses, writing nothing, what does not fit them: then the call is checked in full, for the
 * error's words. In place from offset 0 (how ws masks) is an unmask: one view to look up, not two.
 */
function nativeTier(from = NO_SHORT) {
  const { mask: maskFrom, unmask: unmaskFrom } = from;

  function fastMask(source, key, output, offset, length) {
    if (typeof offset !== 'number' || typeof length !== 'number' || !isByteKey(key)) return false;
    // Where immutable buffers may exist only a call shown writable goes to the addon (it cannot tell). The
    // probe writes output[offset], so it runs only once element reads have shown that the addon takes the
    // call: integer indices of real Uint8Arrays, both ranges inside them. In place the brand decides the route.
    if (
      MAY_BE_IMMUTABLE &&
      !(
        isUint8Array(output) &&
        output[offset + length - 1] !== undefined &&
        (source === output || (isUint8Array(source) && source[length - 1] !== undefined)) &&
        writable(output, offset, length)
      )
    ) {
      return false;
    }
    const inPlace = source === output && offset === 0;
    const bytes = inPlace && (MAY_BE_IMMUTABLE || isUint8Array(output));
    const word = keyWord(key[0], key[1], key[2], key[3]);
    try {
      if (inPlace && bytes && hasExactly(source, length)) unmaskFast(source, word);
      else maskFast(source, output, offset, length, word);
    } catch {
      return false;
    }
    return true;
  }

  /** A real Uint8Array and a byte key, which the addon never refuses. */
  function fastUnmask(buffer, key, bytes) {
    if (!(bytes && isByteKey(key) && writable(buffer, 0, 1))) return false;
    unmaskFast(buffer, keyWord(key[0], key[1], key[2], key[3]));
    return true;
  }

  /**
   * A call lib/checks.js has checked (an Array key, say): short payloads between real Uint8Arrays, which
   * are their own byte views, in the JavaScript loop by element stores; the rest through the addon, with
   * the caller's own views, which it looks up and checks again.
   */
  function checkedXor(source, output, offset, length, word, src, out) {
    const inPlace = source === output && offset === 0;
    if (src === source && out === output && length < (inPlace ? unmaskFrom : maskFrom)) {
      xorKeyWord(source, output, offset, length, word);
    } else if (inPlace && src === source && hasExactly(source, length)) {
      unmaskFast(source, word);
    } else {
      maskFast(source, output, offset, length, word);
    }
  }

  return tier({ backend, from, fastMask, fastUnmask, checkedXor });
}

// The tier at every size (tests, benchmarks), made on first use: where the package runs, the one tier is
// withThresholds()'s, and JavaScriptCore treats what a single closure of lib/tier.js closes over as constant.
let everySize;
const atEverySize = () => (everySize ??= nativeTier());

module.exports = {
  backend,
  get mask() {
    return atEverySize().mask;
  },
  get unmask() {
    return atEverySize().unmask;
  },
  get backendFrom() {
    return atEverySize().backendFrom;
  },
  /** The package's tier: payloads below lib/thresholds.js's sizes stay in JavaScript. */
  withThresholds: () => nativeTier(NATIVE_FROM),
  /** The native levels BUFFERUTIL_SIMD_LEVEL takes here, lowest first. */
  levels: NATIVE_LEVELS,
  /** The level the addon runs this environment's calls at, as it reports it now. */
  level: () => addon.level(),
  platformNames,
  file,
};
