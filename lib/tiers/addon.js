'use strict';

// This platform's addon for lib/tiers/native.js: a clone's own build, else the platform package (an optional
// dependency), only at this version and interface (lib/version.js), and only whole. Else an error listing what was
// tried, ending with the fix, also its `fix` (code BUFFERUTIL_SIMD_NO_ADDON where a prebuilt addon exists), or the
// runtime's refusal of every addon.

const { closeSync, fstatSync, openSync, readSync } = require('node:fs');
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

/** Throws if the ELF `file` is shorter than its headers say (an interrupted copy, a full disk): glibc's dlopen maps it
 * and touches pages past its end, a SIGBUS no one can catch. Reads the headers alone; passes other formats. */
function refuseCutShort(file) {
  const fd = openSync(file, 'r');
  try {
    const { size } = fstatSync(fd);
    const read = (at, bytes) => {
      const into = new Uint8Array(bytes);
      return new DataView(into.buffer, 0, readSync(fd, into, 0, bytes, at));
    };
    const head = read(0, 64);
    if (head.byteLength < 64 || head.getUint32(0) !== 0x7f454c46) return;
    // ELFCLASS64 or 32, little- or big-endian: the ends of the section and program header tables and of each PT_LOAD's bytes.
    const [wide, little] = [head.getUint8(4) === 2, head.getUint8(5) === 1];
    const word = (view, at) => (wide ? Number(view.getBigUint64(at, little)) : view.getUint32(at, little));
    const half = (at) => head.getUint16(wide ? at + 12 : at, little);
    const [phoff, phentsize, phnum] = [word(head, wide ? 32 : 28), half(42), half(44)];
    let end = Math.max(word(head, wide ? 40 : 32) + half(46) * half(48), phoff + phentsize * phnum);
    const [offset, filesz] = wide ? [8, 32] : [4, 16];
    const table = end > size ? new DataView(new ArrayBuffer(0)) : read(phoff, Math.min(phentsize * phnum, 65536));
    for (let at = 0; at + filesz + (wide ? 8 : 4) <= table.byteLength; at += phentsize) {
      if (table.getUint32(at, little) === 1) end = Math.max(end, word(table, at + offset) + word(table, at + filesz));
    }
    if (end > size)
      throw new Error(`${size} B, but its ELF headers say ${end}: cut short (an interrupted copy, a full disk?), not opened`);
  } finally {
    closeSync(fd);
  }
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

/** `{ addon, file }`, or an error that says why none loads, with its `fix`: the one line that says what to do. */
function loadAddon() {
  const errors = [];
  let broken; // the last candidate opened that did not load
  /** The addon `id` from `req`, if whole and of this interface; notes why not otherwise. */
  const open = (label, req, id) => {
    broken = label;
    let file;
    try {
      file = req.resolve(id);
      refuseCutShort(file);
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
  // The fix for how it was lost: none built, this platform's build there but damaged, a bundle without it, not installed.
  const names = platformNames();
  const name = names[platform === 'linux' && runsOnGlibc() === false ? 1 : 0];
  const wanted = `${NAME}-${name}@${VERSION}`;
  let own; // this package's manifest, unless this code runs from a bundle
  try {
    own = find('../../package.json');
  } catch {}
  const ship =
    typeof find === 'function'
      ? `Ship ${wanted} beside this bundle (in a node_modules above it)`
      : 'Give this bundle a require()';
  const fix = !names.length
    ? `${NAME} publishes no addon for ${platform}-${arch}.`
    : broken?.includes(name)
      ? `${broken} is there but does not load (damaged, cut short or another build): reinstall it (rm -rf node_modules && npm install).`
      : own?.name !== NAME
        ? `${ship}, or leave ${NAME} out of it (external): see ${NAME}'s docs/bundlers.md.`
        : `Install ${wanted} where this code runs: npm installs it with ${NAME} as an optional dependency, ` +
          'unless --omit=optional or a lockfile or image made on another platform left it out.';
  const error = new Error(`No ${NAME} addon loads on ${platform}-${arch}:\n  ${[...errors, fix].join('\n  ')}`);
  if (names.length) error.code = 'BUFFERUTIL_SIMD_NO_ADDON';
  error.fix = fix;
  throw error;
}

module.exports = { loadAddon, platformNames };
