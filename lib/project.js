'use strict';

// What `npx bufferutil-simd` reads of a project (docs/check.md): its package manager, the packages in its node_modules that
// require `bufferutil` and what each gets, and how to switch every one to this package. Files are read as data, each
// folder once by real path and inside the project, only regular files of bounded size, for a bounded time; nothing runs.

const fs = require('node:fs');
const path = require('node:path');

const NAME = 'bufferutil-simd';
const BUN = typeof Bun !== 'undefined';
/** A manifest's value as text, read as data: nothing of it is called. */
const field = (value) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
// What the walk reads (docs/check.md): files up to FILE_BYTES, a package's sources up to PACKAGE_BYTES, for TREE_SECONDS.
const [FILE_BYTES, PACKAGE_BYTES, TREE_SECONDS] = [8 * 2 ** 20, 64 * 2 ** 20, 30];
/** `fn()`, or undefined where it throws (no such file, not JSON); a refused permission is never read as "none". */
function quiet(fn) {
  try {
    return fn();
  } catch (error) {
    if (error?.code === 'ERR_ACCESS_DENIED' || error?.name === 'NotCapable') throw error;
  }
}
/** A regular file's text if it holds at most `limit` bytes: never a device, FIFO or socket, whatever a link says. */
function readText(file, limit = FILE_BYTES) {
  const fd = quiet(() => fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0)));
  if (fd === undefined) return;
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > limit) return;
    const bytes = Buffer.alloc(stat.size);
    return bytes.toString('utf8', 0, fs.readSync(fd, bytes, 0, stat.size, 0));
  } finally {
    fs.closeSync(fd);
  }
}
const readJson = (file) => quiet(() => JSON.parse(readText(file)));
/** Whether `dir` lies inside `root` (or is it). */
const inside = (dir, root) => !/^\.\.(?:[\\/]|$)|^[\\/]|^\w:/.test(path.relative(root, dir));

/** The project's package manager, from its layout or lockfile: the one whose way to pin every copy the report gives. */
function managerOf(root) {
  const has = (file) => quiet(() => fs.existsSync(path.join(root, file)));
  if (has('.pnp.cjs') || has('.pnp.data.json')) return 'yarn-pnp';
  const marks = { pnpm: ['node_modules/.pnpm', 'pnpm-lock.yaml'], deno: ['node_modules/.deno', 'deno.lock'] };
  Object.assign(marks, { yarn: ['yarn.lock'], bun: ['bun.lock', 'bun.lockb'], npm: ['package-lock.json'] });
  return Object.keys(marks).find((manager) => marks[manager].some(has)) ?? 'npm';
}

// Each package inside the project's node_modules (nested, scoped, pnpm's and Deno's stores; every folder once, by real path)
// whose code requires `bufferutil` by name, and what it uses here: this package, the original, core's http.websocketMask
// (code that looks for it, where it exists), Bun's own ws (Bun answers `require('ws')`), nothing (code reading
// WS_NO_BUFFER_UTIL, while set), or none found. Throws, with why, past TREE_SECONDS.
function consumers(root, core) {
  const [seen, found, requires] = [new Set(), [], /(?:require\s*\(|import\s*\(|from)\s*['"]bufferutil['"]/];
  const deadline = Date.now() + TREE_SECONDS * 1000;
  const list = (dir) => {
    if (Date.now() > deadline)
      throw new Error(`reading the tree took over ${TREE_SECONDS} s (${seen.size} folders): too big to list`);
    return quiet(() => fs.readdirSync(dir, { withFileTypes: true })) ?? [];
  };
  const once = (dir) => {
    const real = quiet(() => fs.realpathSync(dir));
    return real && inside(real, root) && !seen.has(real) && seen.add(real) && real;
  };
  const relative = (to) => path.relative(root, to).replaceAll(path.sep, '/');
  // The package's JavaScript files that require bufferutil (its own node_modules and links left out), up to PACKAGE_BYTES.
  const sources = (dir, texts, budget = { bytes: PACKAGE_BYTES }) => {
    for (const entry of list(dir)) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules') sources(file, texts, budget);
      else if (entry.isFile() && /\.[cm]?js$/.test(entry.name) && budget.bytes > 0) {
        const text = readText(file, Math.min(FILE_BYTES, budget.bytes)) ?? '';
        budget.bytes -= text.length;
        if (requires.test(text)) texts.push(text);
      }
    }
    return texts;
  };
  const add = (dir) => {
    const real = once(dir);
    const manifest = real && readJson(path.join(real, 'package.json'));
    if (!manifest) return;
    const [name, version] = [field(manifest.name), field(manifest.version)];
    const ours = name === 'bufferutil' || name === NAME || name.startsWith(`${NAME}-`);
    const texts = ours ? [] : sources(real, []);
    let lib; // the `bufferutil` its code gets by Node's lookup, looking no higher than the project
    for (let at = real; texts.length && !lib; at = path.dirname(at)) {
      const dir = path.join(at, 'node_modules', 'bufferutil');
      const json = path.basename(at) !== 'node_modules' && readJson(path.join(dir, 'package.json'));
      if (json) lib = { dir, name: json.name };
      if (at === root || at === path.dirname(at)) break;
    }
    let uses = lib ? (lib.name === NAME ? NAME : 'bufferutil') : 'none';
    if (BUN && name === 'ws') uses = 'bun';
    else if (core && texts.every((text) => text.includes('websocketMask'))) uses = 'core';
    else if (process.env.WS_NO_BUFFER_UTIL && texts.every((text) => text.includes('WS_NO_BUFFER_UTIL'))) uses = 'off';
    if (texts.length) found.push({ name, version, path: relative(real), uses, bufferutil: lib ? relative(lib.dir) : null });
    visit(path.join(real, 'node_modules'));
  };
  const visit = (modules) => {
    const real = once(modules);
    for (const { name } of real ? list(real) : []) {
      const dir = path.join(real, name);
      if (name === '.pnpm' || name === '.deno') for (const store of list(dir)) visit(path.join(dir, store.name, 'node_modules'));
      else if (name.startsWith('@')) for (const scoped of list(dir)) add(path.join(dir, scoped.name));
      else if (!name.startsWith('.')) add(dir);
    }
  };
  visit(path.join(root, 'node_modules'));
  return found;
}

// Per manager, the command that adds this package as `bufferutil`, and where every copy is pinned to it (README, "Install"):
// a package.json field, or pnpm 12's pnpm-workspace.yaml.
const MANAGERS = {
  npm: ['npm install', 'overrides'],
  pnpm: ['pnpm add', 'pnpm-workspace.yaml'],
  yarn: ['yarn add', 'resolutions'],
  'yarn-pnp': ['yarn add', 'resolutions'],
  bun: ['bun add', 'overrides'],
  deno: ['deno add', 'overrides'],
};
const PNP = 'Yarn PnP keeps packages in zip archives, which this command does not open: `yarn why bufferutil` lists them';

/** How every caller comes to load this package under the project's manager, or null where nothing is left to switch. */
function switchFix(manager, list, { version, top, project }) {
  const [add, pin] = MANAGERS[manager];
  const spec = `npm:${NAME}@^${version}`;
  const where = pin.endsWith('.yaml')
    ? `overrides: { bufferutil: ${spec} } in ${pin}`
    : `"${pin}": { "bufferutil": "${spec}" } in package.json`;
  const pinning = `${where}, then reinstall`;
  const pinned = field(project?.[pin]?.bufferutil);
  const original = list?.filter((c) => c.uses === 'bufferutil' || c.uses === 'none') ?? [];
  if (list ? !original.length : pinned.includes(NAME)) return null;
  if (!list || top?.name === NAME) return pinning;
  const nested = original.some((c) => c.bufferutil && c.bufferutil !== 'node_modules/bufferutil');
  return `${add} bufferutil@${spec}${nested ? `, and ${pinning}` : ''}`;
}

/** The project at `root` as the command reports it: `{ manager, consumers, unlisted, switch }`, `consumers` null and
 * `unlisted` saying why where they cannot be listed; `core` where this runtime has http.websocketMask, `version` this
 * package's, `top` the project's `node_modules/bufferutil` manifest. */
function readProject(root, { core, version, top }) {
  const manager = managerOf(root);
  let [list, unlisted] = [null, manager === 'yarn-pnp' ? PNP : null];
  try {
    if (!unlisted) list = consumers(root, core);
  } catch (error) {
    unlisted = String(error.message);
  }
  const project = readJson(path.join(root, 'package.json'));
  return { manager, consumers: list, unlisted, switch: switchFix(manager, list, { version, top, project }) };
}

module.exports = { readProject, readJson, quiet, field, inside };
