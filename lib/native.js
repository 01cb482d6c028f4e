'use strict';

// Loads the native addon for this platform and binds it at the level this environment asks for
// (`level.js`), or throws. `index.js` decides what to do without it. Exports the tier (`mask`, `unmask`,
// `backend`, as every tier does), the bound object with the addon's fast entries (`bound`), and the addon
// itself and its file (`addon`, `file`: tests and benchmarks bind other levels with it, and name it).
//
// Where the addon is looked for, first to last: the file `npm run build` leaves in a clone's root, then the
// platform package that npm installs as an optional dependency. Both are looked up at run time, from where
// this code runs: lib/ in the package, or the file a bundler made of it. So a bundle that can still reach
// node_modules (or has the platform package copied beside it) gets the addon, and one deployed alone gets
// the WebAssembly tier, with nothing for the bundler to resolve or warn about here.
//
// An addon is loaded only when the package it comes with is this JavaScript's version (`version.js`): a
// bundle keeps its JavaScript but finds whatever addon is installed where it runs, and an addon of another
// version may not match it. One that does not is never loaded (not even opened), and if no addon loads,
// a warning with code BUFFERUTIL_SIMD_ADDON_MISMATCH says which one was passed over and why.

const { createRequire } = require('node:module');
const { dirname } = require('node:path');
const { requested } = require('./level');
const { refusingImmutable } = require('./checks');
const { backendFrom } = require('./thresholds');
const VERSION = require('./version');

const NAME = 'bufferutil-simd';
const MISMATCH = 'BUFFERUTIL_SIMD_ADDON_MISMATCH';
const { platform, arch } = process;

/**
 * The napi-rs names of this platform's builds, most likely first (glibc before musl on Linux; on Windows the
 * GNU build, which the release ships for x64, before the MSVC one, which it ships for arm64).
 */
function platformNames() {
  if (platform === 'linux') {
    const abis = arch === 'arm' ? ['gnueabihf', 'musleabihf'] : ['gnu', 'musl'];
    return abis.map((abi) => `linux-${arch}-${abi}`);
  }
  if (platform === 'win32') return [`win32-${arch}-gnu`, `win32-${arch}-msvc`];
  if (platform === 'darwin') return [`darwin-${arch}`];
  return [`${platform}-${arch}`];
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

/** The addon `id` names as `req` resolves it, loaded, and its file. */
function open(req, id) {
  const file = req.resolve(id);
  return { addon: req(file), file };
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
        errors.push(`${pkg}: ${firstLine(error)}`);
      }
    }
  }
  const error = new Error(`No ${NAME} addon loads on ${platform}-${arch}:\n  ${errors.join('\n  ')}`);
  error.code = 'ERR_BUFFERUTIL_SIMD_NO_ADDON';
  if (mismatches.length) {
    const found = mismatches.map(({ pkg, version, dir }) => `${pkg} ${version} (${dir})`).join(' and ');
    const wanted = mismatches.map(({ pkg }) => `${pkg}@${VERSION}`).join(' or ');
    error.mismatches = mismatches;
    if (typeof process.emitWarning === 'function') {
      process.emitWarning(
        `${NAME} ${VERSION} did not load ${found}: an addon of another version may not match this JavaScript, ` +
          `so it runs without its addon. Install ${wanted} where this code runs, or leave ${NAME} out of the bundle.`,
        { code: MISMATCH }
      );
    }
  }
  throw error;
}

const { addon, file } = load();
// `bind` gives this environment its own functions and level: other threads' choices cannot change them.
const bound = addon.bind(requested);

module.exports = {
  ...refusingImmutable({ mask: bound.mask, unmask: bound.unmask, backend: bound.backend, backendFrom: backendFrom(bound.backend) }),
  kernelLevel: bound.kernelLevel,
  bound,
  addon,
  file,
};
