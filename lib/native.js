'use strict';

// The native tier: loads the addon for this platform, binds it at the level this environment asks for
// (`level.js`), and routes calls to it (lib/tier.js); throws when no addon loads, and `index.js` then picks
// another tier. Exports the tier at every size (tests), `withThresholds()` (the package's, JavaScript below
// lib/thresholds.js's sizes), and for tests and benchmarks the bound object (`bound`), the addon and its
// file.
//
// Where the addon is looked for, first to last: the file `npm run build` leaves in a clone's root, then the
// platform package that npm installs as an optional dependency. Both are looked up at run time, from where
// this code runs: lib/ in the package, or the file a bundler made of it. So a bundle that can still reach
// node_modules (or has the platform package copied beside it) gets the addon, and one deployed alone gets
// the WebAssembly tier, with nothing for the bundler to resolve or warn about here.
//
// An addon is loaded only when the package it comes with is this JavaScript's version, and it is used
// only when it reports the interface this JavaScript expects (`version.js`). One of another version is
// never opened, and if no addon loads, a warning with code BUFFERUTIL_SIMD_ADDON_MISMATCH says which
// one was passed over and why.

const { createRequire } = require('node:module');
const { dirname } = require('node:path');
const { requested, JS_TIERS } = require('./level');
const { MAY_BE_IMMUTABLE, hasExactly, isByteKey, isUint8Array, keyWord, withCode, writable, writeBack } = require('./checks');
const { tier, NO_SHORT } = require('./tier');
const { xorKeyWord } = require('./loops');
const { NATIVE_FROM } = require('./thresholds');
const { version: VERSION, addonInterface: INTERFACE } = require('./version');

const NAME = 'bufferutil-simd';
const MISMATCH = 'BUFFERUTIL_SIMD_ADDON_MISMATCH';
const STALE = 'ERR_BUFFERUTIL_SIMD_STALE_ADDON';
const { platform, arch } = process;

/**
 * The napi-rs names of this platform's builds, most likely first (glibc before musl on Linux; on Windows the
 * GNU build, which the release ships for x64, before the MSVC one, which it ships for arm64).
 */
function platformNames(os = platform, cpu = arch) {
  if (os === 'linux') {
    const abis = cpu === 'arm' ? ['gnueabihf', 'musleabihf'] : ['gnu', 'musl'];
    return abis.map((abi) => `linux-${cpu}-${abi}`);
  }
  if (os === 'win32') return [`win32-${cpu}-gnu`, `win32-${cpu}-msvc`];
  if (os === 'darwin') return [`darwin-${cpu}`];
  return [`${os}-${cpu}`];
}

/**
 * Node's `require` as it resolves from where this code runs, made at run time so that no bundler takes the
 * requests below for its own (webpack would warn "Critical dependency: the request of a dependency is an
 * expression" and bundle a context that loads nothing; rollup's commonjs plugin would put a call that
 * throws in its place). `__filename` is this file, or the bundle: esbuild, webpack and rollup leave it to
 * the runtime when they build for Node (webpack's ES module output turns it into the bundle's path too).
 * An ES module bundle of esbuild or rollup has none: there, the `require` in scope, which is esbuild's
 * shim for the one the usual banner makes (`createRequire(import.meta.url)`), or a stub that throws.
 * webpack settles `typeof __webpack_require__` at build time and drops that branch unread.
 */
function runtimeRequire() {
  if (typeof __filename === 'string' && __filename !== '') return createRequire(__filename);
  return typeof __webpack_require__ === 'function' ? undefined : typeof require === 'function' ? require : undefined;
}

/** The first line of an error's message, for the list of what was tried. */
const firstLine = (error) => String(error?.message ?? error).split('\n')[0];

/**
 * Requires that resolve from this package's own folder, found by name from where the code runs (as
 * `bufferutil-simd`, or as `bufferutil`, the name ws loads it by): a bundle in a pnpm project reaches this
 * package at the top of node_modules, and its platform package only from there, beside it.
 */
function packageRequires(find) {
  const requires = [];
  for (const id of [NAME, 'bufferutil']) {
    try {
      const at = find.resolve(`${id}/package.json`);
      if (find(at).name === NAME) requires.push(createRequire(at));
    } catch {
      // Not installed under that name (or not this package): nothing to look from.
    }
  }
  return requires;
}

/** The addon `id` names as `req` resolves it, loaded, and its file; throws unless it has this interface. */
function open(req, id) {
  const file = req.resolve(id);
  const addon = req(file);
  if (addon.interface !== INTERFACE || typeof addon.bind !== 'function') {
    const message = `addon interface ${addon.interface}, not ${INTERFACE} (built from other sources): not used`;
    throw withCode(new Error(message), STALE);
  }
  return { addon, file };
}

/** `pkg`'s package.json as `req` resolves it, and its version; throws where `req` cannot find it. */
function locate(pkg, req) {
  const at = req.resolve(`${pkg}/package.json`);
  return { req, at, version: req(at).version };
}

function load() {
  const errors = [];
  const mismatches = [];
  const find = runtimeRequire();
  if (typeof find !== 'function') {
    errors.push('no require() to find an addon with in this bundle');
  } else {
    let fromPackage; // packageRequires(find), once needed
    for (const name of platformNames()) {
      // A clone's own build: only beside this package's manifest at this version (beside a bundle, `..` is
      // someone else's folder).
      const local = `../${NAME}.${name}.node`;
      let manifest;
      try {
        find.resolve(local);
        manifest = find('../package.json');
      } catch (error) {
        errors.push(`${local}: ${firstLine(error)}`);
      }
      if (manifest) {
        if (manifest.name === NAME && manifest.version === VERSION) {
          try {
            return open(find, local);
          } catch (error) {
            if (error?.code === STALE)
              mismatches.push({ pkg: local, version: `${VERSION}, ${error.message}`, dir: dirname(find.resolve(local)) });
            errors.push(`${local}: ${firstLine(error)}`);
          }
        } else {
          errors.push(`${local}: not beside ${NAME}@${VERSION}'s package.json (found ${manifest.name}@${manifest.version})`);
        }
      }

      // The platform package, from where this code runs, else from this package's folder.
      const pkg = `${NAME}-${name}`;
      let found;
      try {
        found = locate(pkg, find);
      } catch (error) {
        fromPackage ??= packageRequires(find);
        for (const req of fromPackage) {
          try {
            found = locate(pkg, req);
            break;
          } catch {
            // Not there either.
          }
        }
        if (!found) {
          errors.push(`${pkg}: ${firstLine(error)}`);
          continue;
        }
      }
      if (found.version !== VERSION) {
        mismatches.push({ pkg, version: found.version, dir: dirname(found.at) });
        errors.push(`${pkg}: version ${found.version}, not ${VERSION}: not loaded`);
        continue;
      }
      try {
        return open(found.req, dirname(found.at));
      } catch (error) {
        if (error?.code === STALE)
          mismatches.push({ pkg, version: `${found.version}, ${error.message}`, dir: dirname(found.at) });
        errors.push(`${pkg}: ${firstLine(error)}`);
      }
    }
  }
  const error = withCode(
    new Error(`No ${NAME} addon loads on ${platform}-${arch}:\n  ${errors.join('\n  ')}`),
    'ERR_BUFFERUTIL_SIMD_NO_ADDON'
  );
  if (mismatches.length) {
    Object.defineProperty(error, 'mismatches', { value: mismatches, enumerable: true });
    const found = mismatches.map(({ pkg, version, dir }) => `${pkg} ${version} (${dir})`).join(' and ');
    const wanted = mismatches.map(({ pkg }) => `${pkg}@${VERSION}`).join(' or ');
    if (typeof process.emitWarning === 'function') {
      process.emitWarning(
        `${NAME} ${VERSION} did not load ${found}: an addon of another version or build may not match this JavaScript, ` +
          `so it runs without its addon. Install ${wanted} where this code runs, or leave ${NAME} out of the bundle.`,
        { code: MISMATCH }
      );
    }
  }
  throw error;
}

const { addon, file } = load();
const NATIVE_LEVELS = String(addon.levels).split(',');
if (
  requested !== undefined &&
  ![...NATIVE_LEVELS, ...JS_TIERS].includes(requested) &&
  typeof process.emitWarning === 'function'
) {
  process.emitWarning(`BUFFERUTIL_SIMD_LEVEL=${requested} is not one of ${[...NATIVE_LEVELS, ...JS_TIERS].join(', ')}; ignored`);
}
const bound = addon.bind(requested);
// A Float64Array over a SharedArrayBuffer that only this module holds, where offset, length and key word
// reach the addon without a Node-API call each (memory no one can detach or move: see
// src/binding/block.rs). The addon adopts one block per environment, for every level; where another copy
// of the package took it first, the numbers go as arguments.
const offered = typeof SharedArrayBuffer === 'function' ? new Float64Array(new SharedArrayBuffer(32)) : undefined;
const block = offered !== undefined && bound.useBlock(offered) === true ? offered : undefined;

/**
 * The tier over `bound`, the addon's functions at one level (`bind` gives this environment its own, so
 * other threads' choices cannot change them). Numbers and a byte key go straight to the addon, which
 * looks up the views itself and refuses what does not fit them, writing nothing: then the call is checked
 * in full, for the error's words. In place from offset 0 (how ws masks what it sends) is an unmask: one
 * view to look up, not two.
 */
function nativeTier(bound, from = NO_SHORT) {
  const { mask: maskWith, maskBlock, unmask: unmaskWith, unmaskBlock } = bound;
  const { mask: maskFrom, unmask: unmaskFrom } = from;
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

  function fastMask(source, key, output, offset, length) {
    if (typeof offset !== 'number' || typeof length !== 'number' || !isByteKey(key)) return false;
    // The output's brand, asked at most once: where immutable buffers may exist only a Uint8Array shown
    // writable goes to the addon (it cannot tell), and in place it decides the route.
    const inPlace = source === output && offset === 0;
    const bytes = (inPlace || MAY_BE_IMMUTABLE) && isUint8Array(output);
    if (MAY_BE_IMMUTABLE && !bytes) return false;
    const word = keyWord(key[0], key[1], key[2], key[3]);
    if (inPlace && bytes && hasExactly(source, length)) {
      if (!writable(source, 0)) return false;
      unmaskFast(source, word);
      return true;
    }
    return maskUnlessRefused(source, output, offset, length, word);
  }

  /**
   * `maskFast`, or false, having written nothing, where the addon refuses the call or the output is
   * immutable. The one `try` of a fast path sits here, off the others: JavaScriptCore inlines no
   * function that has one.
   */
  function maskUnlessRefused(source, output, offset, length, word) {
    try {
      if (MAY_BE_IMMUTABLE && !writeBack(output, offset)) return false;
      maskFast(source, output, offset, length, word);
      return true;
    } catch {
      return false;
    }
  }

  /** A real Uint8Array and a byte key, which the addon never refuses. */
  function fastUnmask(buffer, key, bytes) {
    if (!(bytes && isByteKey(key) && writable(buffer, 0))) return false;
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

  return tier({ backend: bound.backend, from, fastMask, fastUnmask, checkedXor });
}

// The tier at every size (tests, benchmarks) is made on first use: where the package runs, the one tier
// made is withThresholds()'s, and an engine that sees a single closure of lib/tier.js's functions can
// treat what they close over as constants (JavaScriptCore measurably does).
let everySize;
const atEverySize = () => {
  everySize ??= nativeTier(bound);
  return everySize;
};

module.exports = {
  backend: bound.backend,
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
  withThresholds: () => nativeTier(bound, NATIVE_FROM),
  /** The tier at every size, capped at `level` (tests and benchmarks). */
  atLevel: (level) => nativeTier(addon.bind(level)),
  kernelLevel: bound.kernelLevel,
  platformNames,
  bound,
  addon,
  file,
};
