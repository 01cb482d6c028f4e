'use strict';

// This platform's addon for lib/tiers/native.js: a clone's own build, else the platform package (an optional
// dependency), only at this version and interface (lib/version.js). Else an error listing what was tried and what to
// install (code BUFFERUTIL_SIMD_NO_ADDON where a prebuilt addon exists), or the runtime's refusal of every addon.

const { createRequire } = require('node:module');
const { dirname } = require('node:path');
const { version: VERSION, addonInterface: INTERFACE } = require('../version');

const NAME = 'bufferutil-simd';
const { platform, arch } = process;

/** The names of a platform's builds, glibc's before musl's; none where the release builds none. */
function platformNames(os = platform, cpu = arch) {
  if (os === 'linux') return [`linux-${cpu}-gnu`, `linux-${cpu}-musl`];
  if (os === 'win32') return [cpu === 'arm64' ? 'win32-arm64-msvc' : `win32-${cpu}-gnu`];
  return os === 'darwin' ? [`darwin-${cpu}`] : [];
}

/** Whether the process report says glibc, undefined without one (Deno): asked only once glibc's build did not load. */
function runsOnGlibc() {
  try {
    return typeof process.report.getReport().header.glibcVersionRuntime === 'string';
  } catch {}
}

/** Node's `require` from here, made at run time so that no bundler takes the requests below; in an ES module bundle,
 * the `require` in scope (esbuild's `createRequire(import.meta.url)` banner) or none. */
function runtimeRequire() {
  if (typeof __filename === 'string' && __filename !== '') return createRequire(__filename);
  return typeof __webpack_require__ === 'function' ? undefined : typeof require === 'function' ? require : undefined;
}

const firstLine = (error) => String(error?.message ?? error).split('\n')[0];

/** `pkg`'s package.json by Node's lookup from here, else from this package's folder by either name it is installed under
 * (in pnpm a bundle needs that): `{ req, at, version }`, or the first error. */
function locate(find, pkg) {
  let first;
  for (const id of [undefined, NAME, 'bufferutil']) {
    try {
      let req = find;
      if (id !== undefined) {
        const manifest = find.resolve(`${id}/package.json`);
        if (find(manifest).name !== NAME) continue;
        req = createRequire(manifest);
      }
      const at = req.resolve(`${pkg}/package.json`);
      return { req, at, version: req(at).version };
    } catch (error) {
      first ??= error;
    }
  }
  return { error: first };
}

/** `{ addon, file }`, or an error that says why none loads and what to install. */
function loadAddon() {
  const errors = [];
  /** The addon `id` from `req`, if it has this interface; notes why not otherwise. */
  const open = (label, req, id) => {
    let file;
    try {
      file = req.resolve(id);
      // A load of its own, out of require's cache: only lib/tiers/native.js holds the entries (docs/safety.md).
      if (req.cache) delete req.cache[file];
      const addon = req(file);
      if (req.cache) delete req.cache[file];
      if (addon.interface === INTERFACE && typeof addon.level === 'function') return { addon, file };
      errors.push(`${label}: addon interface ${addon.interface}, not ${INTERFACE} (built from other sources): not used`);
    } catch (error) {
      errors.push(`${label}: ${firstLine(error)}`);
    }
  };
  const find = runtimeRequire();
  for (const name of typeof find === 'function' ? platformNames() : []) {
    // musl's build cannot load beside glibc: not tried, not listed.
    if (name.endsWith('-musl') && runsOnGlibc()) continue;
    // A clone's build, only beside this package's manifest at this version (beside a bundle, `../..` is another's).
    const local = `../../${NAME}.${name}.node`;
    let manifest;
    try {
      find.resolve(local);
      manifest = find('../../package.json');
    } catch (error) {
      if (error?.code !== 'MODULE_NOT_FOUND') errors.push(`${local}: ${firstLine(error)}`);
    }
    if (manifest?.name === NAME && manifest.version === VERSION) {
      const opened = open(local, find, local);
      if (opened) return opened;
    } else if (manifest) {
      errors.push(`${local}: not beside ${NAME}@${VERSION}'s package.json (found ${manifest.name}@${manifest.version})`);
    }

    const pkg = `${NAME}-${name}`;
    const found = locate(find, pkg);
    if (found.error) {
      errors.push(`${pkg}: ${firstLine(found.error)}`);
    } else if (found.version !== VERSION) {
      errors.push(`${pkg}: version ${found.version}, not ${VERSION}: not loaded (${dirname(found.at)})`);
    } else {
      const opened = open(pkg, found.req, dirname(found.at));
      if (opened) return opened;
    }
  }
  if (typeof find !== 'function') errors.push('no require() to find an addon with in this bundle');
  // A runtime that refuses every addon (--no-addons, --permission, Deno without --allow-ffi) says so for any path.
  try {
    process.dlopen({ exports: {} }, '/');
  } catch (error) {
    if (error?.code === 'ERR_DLOPEN_DISABLED' || error?.name === 'NotCapable') throw error;
  }
  const names = platformNames();
  const wanted = `${NAME}-${names[platform === 'linux' && runsOnGlibc() === false ? 1 : 0]}@${VERSION}`;
  const fix = names.length
    ? `Install ${wanted} where this code runs: npm installs it with ${NAME} as an optional dependency, ` +
      'unless --omit=optional or a lockfile or image made on another platform left it out.'
    : `${NAME} publishes no addon for ${platform}-${arch}.`;
  const error = new Error(`No ${NAME} addon loads on ${platform}-${arch}:\n  ${[...errors, fix].join('\n  ')}`);
  if (names.length) error.code = 'BUFFERUTIL_SIMD_NO_ADDON';
  throw error;
}

module.exports = { loadAddon, platformNames };
