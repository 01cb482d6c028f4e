'use strict';

// Does the README's install line for each package manager replace every bufferutil, as that manager's own binary
// installs it? One project per manager (npm, pnpm 12, Yarn 1, Yarn 4 node-modules and PnP, `bun install`, `deno
// install`) takes the mixed app's dependencies (consumers.js's: socket.io server and client, engine.io on ws ~8.21,
// ws 8.23 and WebSocket-Node, whose `bufferutil ^4.0.1` is a hard dependency) from the local registry, and a local
// package that pins bufferutil 4.1.0 exactly, with the README's override for that manager and its add command. Then: no bufferutil 4.1.0 in the lockfile or on disk; the
// check command, run the manager's way, names the manager, and every package it says loads this package made calls,
// every other none (under Yarn PnP it cannot list them, and says so); and the app, run as that manager's users run it
// (Node 26 for npm, pnpm and Yarn; Bun for bun, Deno for deno), with the recording preload, gets calls from every
// caller that loads a bufferutil there: WebSocket-Node on every runtime, ws ~8.21 but on Bun (Bun answers
// `require('ws')` with its own), ws 8.23 only on Deno (Node 26.12 gives it core's http.websocketMask). Last, a project
// with only a deno.json, whose imports cannot reach ws's require (the README says so).

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { rootManifest, packRelease, tempDir, run } = require('../../scripts/lib/packages');
const { startRegistry } = require('../../scripts/lib/registry');
const { RUNTIMES, ensureNode, ensureManager, npmRuntime } = require('../../scripts/lib/runtimes');
const { DEPENDENCIES, PRELOAD, APP } = require('./mixed-app');

const NAME = rootManifest.name;
const SPEC = `npm:${NAME}@^${rootManifest.version}`;
const ADD = `bufferutil@${SPEC}`;
// Fewer payloads than consumers.js's, one run per manager: every frame-length form, each side of ws's thresholds.
const SIZES = { ws: [0, 1, 48, 126, 65536], socketIo: [1, 65536] };
const DENO_FLAGS = ['--allow-read', '--allow-env', '--allow-sys', '--allow-ffi'];
// bufferutil 4.1.0 resolved, as each lockfile writes it: package-lock.json and Yarn 1 by its tarball, Yarn 4 as
// `resolution: "bufferutil@npm:4.1.0` (then `::__archiveUrl=…` where the registry proxies it), Bun and Deno quoted
// (`"bufferutil@4.1.0"`, `"npm:bufferutil@4.1.0"`), pnpm as a packages key; not a range a package asked for (Yarn 1's
// key `bufferutil@4.1.0, bufferutil@^4.0.1, …:` lists those).
const ORIGINAL = /bufferutil\/-\/bufferutil-4\.1\.0\.tgz|"(npm:)?bufferutil@(npm:)?4\.1\.0("|::)|^\s+'?bufferutil@4\.1\.0'?:/m;
// The age gates hold back what the local registry serves, published a moment ago (Yarn 4 and Deno refuse it, pnpm 12
// takes it and writes minimumReleaseAgeExclude): the README's release-day lines.
const YARNRC = (url, linker) =>
  [
    `npmRegistryServer: "${url}"`,
    'unsafeHttpWhitelist: ["127.0.0.1"]',
    'enableTelemetry: false',
    `npmPreapprovedPackages: ["${NAME}", "${NAME}-*"]`,
    ...(linker ? [`nodeLinker: ${linker}`] : []),
  ].join('\n');
const node = ['node', ['--require', './preload.cjs', 'app.cjs']];
// A dependency that pins bufferutil exactly, as some published packages do: the override must replace its copy too.
// A local folder (file:), so that no age gate holds it; it never loads bufferutil.
const PINS = { 'pins-bufferutil': 'file:./pins-bufferutil' };
const PINNING = { name: 'pins-bufferutil', version: '1.0.0', main: 'index.js', dependencies: { bufferutil: '4.1.0' } };

// Per manager: the README's override (package.json fields and config files), the add command, how a user runs the
// check and the app, the lockfile, and what the check must call the manager.
const MANAGERS = [
  {
    label: 'npm',
    manager: 'npm',
    manifest: { overrides: { bufferutil: SPEC } },
    files: () => ({}),
    install: ['npm', ['install', '--no-audit', '--no-fund', '--no-update-notifier', ADD]],
    check: ['npm', ['exec', '--', NAME]],
    app: node,
    lockfile: 'package-lock.json',
  },
  {
    label: 'pnpm 12',
    manager: 'pnpm',
    bin: { pnpm: () => ensureManager('pnpm') },
    manifest: {},
    // pnpm 12 reads the registry from .npmrc, not from npm_config_registry.
    files: (url) => ({
      '.npmrc': `registry=${url}\n`,
      'pnpm-workspace.yaml': `overrides:\n  bufferutil: ${SPEC}\nallowBuilds:\n  es5-ext: false\n  utf-8-validate: false\n`,
    }),
    install: ['pnpm', ['add', ADD]],
    check: ['pnpm', ['exec', NAME]],
    app: node,
    lockfile: 'pnpm-lock.yaml',
  },
  {
    label: 'Yarn 1',
    manager: 'yarn',
    bin: { yarn: () => ensureManager('yarn1') },
    manifest: { resolutions: { bufferutil: SPEC } },
    files: (url) => ({ '.yarnrc': `registry "${url}"\n` }),
    // As root Yarn 1 caches in /usr/local/share/.cache/yarn, whatever HOME says: a cache of the test's own.
    install: ['yarn', ['add', '--non-interactive', '--cache-folder', '../yarn1-cache', ADD]],
    check: ['yarn', ['--silent', NAME]],
    app: node,
    lockfile: 'yarn.lock',
  },
  {
    label: 'Yarn 4 node-modules',
    manager: 'yarn',
    bin: { yarn: () => ensureManager('yarn4') },
    manifest: { resolutions: { bufferutil: SPEC } },
    files: (url) => ({ '.yarnrc.yml': YARNRC(url, 'node-modules') }),
    install: ['yarn', ['add', ADD]],
    check: ['yarn', [NAME]],
    app: node,
    lockfile: 'yarn.lock',
  },
  {
    label: 'Yarn 4 PnP',
    manager: 'yarn-pnp',
    pnp: true,
    bin: { yarn: () => ensureManager('yarn4') },
    manifest: { resolutions: { bufferutil: SPEC } },
    files: (url) => ({ '.yarnrc.yml': YARNRC(url) }),
    install: ['yarn', ['add', ADD]],
    check: ['yarn', [NAME]],
    app: ['yarn', ['node', '--require', './preload.cjs', 'app.cjs']],
    lockfile: 'yarn.lock',
  },
  {
    label: 'bun install',
    manager: 'bun',
    runtime: 'bun',
    bin: { bun: () => npmRuntime(RUNTIMES.find(({ name }) => name === 'bun')) },
    manifest: { overrides: { bufferutil: SPEC } },
    files: (url) => ({ 'bunfig.toml': `[install]\nregistry = "${url}"\n` }),
    install: ['bun', ['add', ADD]],
    check: ['bun', ['x', '--bun', NAME]],
    app: ['bun', ['--preload', './preload.cjs', 'app.cjs']],
    lockfile: 'bun.lock',
  },
  {
    label: 'deno install',
    manager: 'deno',
    runtime: 'deno',
    bin: { deno: () => npmRuntime(RUNTIMES.find(({ name }) => name === 'deno')) },
    manifest: { overrides: { bufferutil: SPEC } },
    files: () => ({}),
    install: ['deno', ['add', '--minimum-dependency-age', '0', ADD]],
    check: ['deno', ['run', ...DENO_FLAGS, `node_modules/bufferutil/bin/${NAME}.js`]],
    app: ['deno', ['run', '-A', '--require', './preload.cjs', 'app.cjs']],
    lockfile: 'deno.lock',
  },
];

let work;
let registry;
let env;

before(
  async () => {
    work = tempDir('bufferutil-simd-managers-');
    const release = packRelease(work);
    registry = await startRegistry([release.main, ...Object.values(release.platforms)]);
    // Each manager's caches, config and state in a home of its own, and no setting from the environment: npm run's
    // npm_config_*, CI (Yarn 4's installs are immutable there: YN0028), a level cap or WS_NO_BUFFER_UTIL.
    const { CI, NODE_OPTIONS, WS_NO_BUFFER_UTIL, BUFFERUTIL_SIMD_LEVEL, ...rest } = process.env;
    env = Object.fromEntries(Object.entries(rest).filter(([name]) => !/^(npm|yarn|pnpm|bun|deno|xdg)_/i.test(name)));
    Object.assign(env, { HOME: path.join(work, 'home'), NO_COLOR: '1', NPM_CONFIG_REGISTRY: registry.url });
    fs.mkdirSync(env.HOME);
  },
  { timeout: 600_000 }
);

after(async () => {
  await registry?.close();
  if (work && !process.env.KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

/** A folder for PATH with Node 26 as `node` and the manager's executables under their own names. */
function binFolder(label, bins) {
  const dir = path.join(work, 'bin', label.replace(/\W+/g, '-'));
  fs.mkdirSync(dir, { recursive: true });
  const node26 = ensureNode(26);
  fs.symlinkSync(node26, path.join(dir, 'node'));
  for (const [name, locate] of Object.entries(bins ?? {})) {
    const file = locate();
    if (file.endsWith('.js'))
      fs.writeFileSync(path.join(dir, name), `#!/bin/sh\nexec "${node26}" "${file}" "$@"\n`, { mode: 0o755 });
    else fs.symlinkSync(file, path.join(dir, name));
  }
  return dir;
}

/** Each folder named bufferutil in the project (node_modules, nested, .pnpm, .deno, a linked file: dependency's own
 * node_modules) that holds bufferutil itself. */
function originals(project) {
  const held = (entry) => {
    const file = path.join(project, entry, 'package.json');
    return fs.existsSync(file) && readJson(file);
  };
  return fs
    .readdirSync(project, { recursive: true })
    .filter((entry) => path.basename(entry) === 'bufferutil' && held(entry)?.name === 'bufferutil')
    .map((entry) => `${entry} (${held(entry).version})`);
}

for (const m of MANAGERS) {
  test(`${m.label}: every caller in the mixed app loads this package`, { timeout: 300_000 }, async (t) => {
    const project = path.join(work, m.label.replace(/\W+/g, '-'));
    fs.mkdirSync(project);
    const manifest = { name: 'app', private: true, dependencies: { ...DEPENDENCIES, ...PINS }, ...m.manifest };
    fs.writeFileSync(path.join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    fs.mkdirSync(path.join(project, PINNING.name));
    fs.writeFileSync(path.join(project, PINNING.name, 'package.json'), JSON.stringify(PINNING));
    fs.writeFileSync(path.join(project, PINNING.name, 'index.js'), 'module.exports = {};\n');
    for (const [file, text] of Object.entries(m.files(registry.url))) fs.writeFileSync(path.join(project, file), text);
    const options = { cwd: project, env: { ...env, PATH: [binFolder(m.label, m.bin), env.PATH].join(path.delimiter) } };
    options.env.DENO_DIR = path.join(work, 'deno-dir');

    const started = Date.now();
    const installed = await run(...m.install, options);
    t.diagnostic(`${m.install[0]} ${m.install[1].join(' ')}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    assert.equal(readJson(path.join(project, 'package.json')).dependencies.bufferutil, SPEC);
    const lock = fs.readFileSync(path.join(project, m.lockfile), 'utf8');
    assert.ok(lock.includes(NAME), `${m.lockfile} does not name ${NAME}`);
    assert.doesNotMatch(lock, ORIGINAL, `${m.lockfile} holds bufferutil 4.1.0`);
    assert.deepEqual(originals(project), [], 'bufferutil 4.1.0 is on disk');
    // Nor a build script of it held back (pnpm's and Deno's lists; a range some package asked for may be named).
    assert.doesNotMatch(installed.stdout + installed.stderr, /npm:bufferutil@4\.1\.0|scripts:[^\n]*\bbufferutil@4\.1\.0/);

    // The check, as this manager runs a dependency's command.
    const [command, args] = m.check;
    const text = (await run(command, [...args, '--no-bench'], options)).stdout;
    for (const line of text.trimEnd().split('\n')) t.diagnostic(line);
    const report = JSON.parse((await run(command, [...args, '--json', '--no-bench'], options)).stdout);
    assert.equal(report.manager, m.manager, 'the package manager the check names');
    assert.equal(report.native, true, `${NAME} loaded without its addon: ${report.reason}`);
    assert.equal(report.runtime.split(' ')[0], { bun: 'Bun', deno: 'Deno' }[m.runtime] ?? 'Node');
    assert.equal(report.switch ?? null, null, 'the check asks for a switch where every copy is this package');

    // The app, with every call recorded by the file that made it and that file's package.
    const file = path.join(work, `calls-${crypto.randomUUID()}.json`);
    fs.writeFileSync(path.join(project, 'preload.cjs'), PRELOAD);
    fs.writeFileSync(path.join(project, 'app.cjs'), APP);
    const appEnv = { ...options.env, CALLS: file, SIZES: JSON.stringify(SIZES) };
    await run(...m.app, { ...options, env: appEnv, timeout: 120_000 });
    const calls = Object.entries(readJson(file));
    const byPackage = {};
    for (const [, { mask, unmask, package: at }] of calls) {
      byPackage[at] ??= { mask: [], unmask: [] };
      byPackage[at].mask.push(...mask);
      byPackage[at].unmask.push(...unmask);
    }
    for (const [at, { mask, unmask }] of Object.entries(byPackage))
      t.diagnostic(`${at}: ${mask.length} mask, ${unmask.length} unmask`);
    const made = (pattern) =>
      Object.entries(byPackage)
        .filter(([at]) => pattern.test(at))
        .reduce((sum, [, { mask, unmask }]) => sum + mask.length + unmask.length, 0);

    if (m.pnp) {
      // No node_modules to read: the check says it cannot list callers, and the calls arrive all the same.
      assert.equal(report.consumers, null);
      assert.match(text, /^callers +.*Yarn PnP/m);
    } else {
      const consumers = report.consumers;
      const unswitched = consumers.filter(({ uses }) => uses === 'bufferutil' || uses === 'none');
      assert.deepEqual(unswitched, [], 'callers the check says do not load this package');
      assert.equal(report.bufferutil.name, NAME);
      // Every file that called belongs to a package the check listed; each listed as loading this package called.
      const real = fs.realpathSync(project);
      const calledFrom = (at) =>
        calls.filter(([caller]) => path.relative(real, caller).replaceAll(path.sep, '/').startsWith(`${at}/`));
      for (const [caller] of calls) {
        const relative = path.relative(real, caller).replaceAll(path.sep, '/');
        assert.ok(
          consumers.some(({ path: at }) => relative.startsWith(`${at}/`)),
          `${relative} called, and the check did not name it`
        );
      }
      for (const { name, version, path: at, uses } of consumers) {
        const count = calledFrom(at).reduce((sum, [, c]) => sum + c.mask.length + c.unmask.length, 0);
        if (uses === NAME) assert.ok(count > 0, `${name} ${version} (${at}): said to load ${NAME}, made no call`);
        else assert.equal(count, 0, `${name} ${version} (${at}): said to use ${uses}, made ${count} calls`);
      }
    }

    // Every caller that loads a bufferutil on this runtime called this package. WebSocket-Node: the client masks every
    // frame, empty ones too; the server unmasks every non-empty one.
    const websocket = byPackage[`websocket@${DEPENDENCIES.websocket}`];
    assert.deepEqual(
      websocket?.mask.map(([length]) => length),
      SIZES.ws,
      'WebSocket-Node masks'
    );
    assert.deepEqual(
      websocket?.unmask,
      SIZES.ws.filter((size) => size > 0),
      'WebSocket-Node unmasks'
    );
    const ws821 = made(/^ws@8\.21\./);
    const ws823 = made(new RegExp(`^ws@${DEPENDENCIES.ws.replaceAll('.', '\\.')}$`));
    if (m.runtime === 'bun') assert.equal(ws821 + ws823, 0, "Bun's own ws stands in for every npm ws");
    else assert.ok(ws821 > 0, 'no call from ws ~8.21 (socket.io-client, engine.io 6.6.12)');
    if (m.runtime === 'deno') assert.ok(ws823 > 0, 'no call from ws 8.23 on Deno, which has no http.websocketMask');
    else assert.equal(ws823, 0, `ws ${DEPENDENCIES.ws} on ${m.runtime ?? 'Node 26'}: no bufferutil`);
    const others = Object.keys(byPackage).filter((at) => !/^(websocket|ws)@/.test(at));
    assert.deepEqual(others, [], 'calls from a package that is neither ws nor WebSocket-Node');
  });
}

test("A deno.json alone: its imports give the project's own code this package, never ws's require('bufferutil')", async (t) => {
  const project = path.join(work, 'deno-json');
  fs.mkdirSync(project);
  const imports = { bufferutil: SPEC, ws: 'npm:ws@8.21.3', websocket: `npm:websocket@${DEPENDENCIES.websocket}` };
  // A scope for ws's own imports, too.
  const scopes = { [imports.ws]: { bufferutil: SPEC } };
  fs.writeFileSync(path.join(project, 'deno.json'), JSON.stringify({ imports, scopes, minimumDependencyAge: 0 }));
  // What the project's import gets, and what ws's own require('bufferutil') resolves to (nothing, or WebSocket-Node's).
  const main = `
    import { createRequire } from 'node:module';
    import ours from 'bufferutil';
    import 'websocket';
    import 'ws';
    let ws;
    try { ws = createRequire(import.meta.resolve('ws')).resolve('bufferutil'); } catch (error) { ws = error.code; }
    console.log(JSON.stringify({ ours: ours.backend, ws }));
  `;
  fs.writeFileSync(path.join(project, 'main.mjs'), main);
  const bin = binFolder('deno-json', { deno: () => npmRuntime(RUNTIMES.find(({ name }) => name === 'deno')) });
  const options = {
    cwd: project,
    env: { ...env, PATH: [bin, env.PATH].join(path.delimiter), DENO_DIR: path.join(work, 'deno-dir') },
  };
  const { ours, ws } = JSON.parse((await run('deno', ['run', '-A', 'main.mjs'], options)).stdout);
  t.diagnostic(`the project's bufferutil: backend ${ours}; ws's require('bufferutil'): ${ws}`);
  assert.match(ours, /^(avx512|avx2|sse2|neon|scalar|wasm|js)$/, "the project's import is this package");
  // The import map's scope ends at the project's own modules: ws's require finds the bufferutil 4.1.0 WebSocket-Node
  // brings, or none. Should it ever reach this package, the README's "cannot" is wrong.
  assert.match(ws, /^MODULE_NOT_FOUND$|[\\/]bufferutil[\\/]4\.1\.0[\\/]/);
});
