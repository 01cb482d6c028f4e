'use strict';

// Who calls this package after the README's install lines, run by each package manager's own binary on the mixed app
// (mixed-app.js) and a package pinning bufferutil 4.1.0: no 4.1.0 may be left, `npx bufferutil-simd` must name what each
// caller uses, and the app must get calls from each caller said to load this package, at the sizes ws's thresholds and
// WebSocket-Node's frames say, and from no other. Last, a deno.json alone, whose imports cannot reach ws's require.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { rootManifest, run } = require('../../scripts/lib/packages');
const { RUNTIMES, MANAGERS: TOOLS, ensureNode, npmRuntime } = require('../../scripts/lib/runtimes');
const { serveRelease, DEPENDENCIES, SIZES, WS_MASK_FROM, WS_UNMASK_FROM, PRELOAD, APP } = require('./mixed-app');

const { name: NAME, version: VERSION } = rootManifest;
const SPEC = `npm:${NAME}@^${VERSION}`;
const ADD = `bufferutil@${SPEC}`;
const DENO_FLAGS = ['--allow-read', '--allow-env', '--allow-sys', '--allow-ffi'];
const BIN = `node_modules/bufferutil/bin/${NAME}.js`;
// bufferutil 4.1.0 resolved, as each lockfile writes it (npm and Yarn 1 by tarball, Yarn 4 `bufferutil@npm:4.1.0` then `"`
// or `::`, Bun and Deno quoted, pnpm a packages key), not a range asked for (Yarn 1's key `bufferutil@4.1.0, …:`).
const ORIGINAL = /bufferutil\/-\/bufferutil-4\.1\.0\.tgz|"(npm:)?bufferutil@(npm:)?4\.1\.0("|::)|^\s+'?bufferutil@4\.1\.0'?:/m;
// The age gates hold back what the local registry serves, published a moment ago (Yarn 4 and Deno refuse it, pnpm 12
// takes it and writes minimumReleaseAgeExclude): the README's release-day lines.
const yarnrc = (linker) => (url) => ({
  '.yarnrc.yml':
    `npmRegistryServer: "${url}"\nunsafeHttpWhitelist: ["127.0.0.1"]\nenableTelemetry: false\n` +
    `npmPreapprovedPackages: ["${NAME}", "${NAME}-*"]\n${linker ? `nodeLinker: ${linker}\n` : ''}`,
});
// A dependency pinning bufferutil exactly, whose copy the override must replace too: a file: folder no age gate holds.
const PINNING = { name: 'pins-bufferutil', version: '1.0.0', dependencies: { bufferutil: '4.1.0' } };
const NPM = ['install', '--no-audit', '--no-fund', '--no-update-notifier'];
const older = (version) => version?.localeCompare('8.22.1', 'en', { numeric: true }) < 0;
const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const writeJson = (file, value) => fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

// How users run the check and the app on each runtime (`node` on PATH is Node 26 unless said; each manager gives the
// check's command under Node), what the check must call the runtime, and what ws >= 8.22.1 and ws ~8.21 use there.
const APP_ARGS = ['--require', './preload.cjs', 'app.cjs'];
const RUNS = {
  node26: { label: 'Node 26.12', runtime: /^Node v26\.12\./, ws: ['core', NAME], app: ['node', APP_ARGS] },
  node22: { label: 'Node 22', node: 22, runtime: /^Node v22\./, ws: [NAME, NAME], app: ['node', APP_ARGS] },
  bun: { label: 'Bun', runtime: /^Bun \d/, ws: ['bun', 'bun'], check: ['bun', ['x', '--bun', NAME]] },
  deno: { label: 'Deno', runtime: /^Deno \d/, ws: [NAME, NAME], check: ['deno', ['run', ...DENO_FLAGS, BIN]] },
};
Object.assign(RUNS.bun, { app: ['bun', ['--preload', ...APP_ARGS.slice(1)]] });
Object.assign(RUNS.deno, { app: ['deno', ['run', '-A', ...APP_ARGS]] });
// Without --bun, bunx runs the check in Node: it says so, and names bunx --bun.
RUNS.bun.also = async (options) => {
  const { stdout } = await run('bun', ['x', NAME, '--no-bench'], options);
  assert.match(stdout, /^bufferutil-simd \S+ · Node v/);
  assert.match(stdout, /^runtime +bunx ran this in Node: this is Node's answer; for Bun's, bunx --bun bufferutil-simd$/m);
};
// Without its permission flags, Deno runs the check to one line naming them.
RUNS.deno.also = async (options) => {
  const { code, stderr } = await run('deno', ['run', BIN, '--no-bench'], options).catch((error) => error);
  assert.deepEqual([code, stderr], [1, `${NAME}: Deno needs ${DENO_FLAGS.join(' ')} (not granted: read,env,sys,ffi)\n`]);
};

/** The bufferutil folders package-lock.json holds, as `where: name version`. */
const npmLocked = (project) =>
  Object.entries(readJson(path.join(project, 'package-lock.json')).packages)
    .filter(([where]) => /(^|\/)node_modules\/bufferutil$/.test(where))
    .map(([where, { name = 'bufferutil', version }]) => `${where}: ${name} ${version}`);
const npmQuiet = ({ stdout, stderr }) => assert.doesNotMatch(stdout + stderr, /ERESOLVE|peer|conflict|invalid/i, stdout + stderr);

// Per manager (as the check names it): its lockfile, and package.json's field for the override (pnpm's: the workspace).
const LOCKFILE = { npm: 'package-lock.json', pnpm: 'pnpm-lock.yaml', yarn: 'yarn.lock', bun: 'bun.lock', deno: 'deno.lock' };
const PIN = { npm: 'overrides', yarn: 'resolutions', bun: 'overrides', deno: 'overrides' };
/** A manager whose `command` (the cached `tool`) adds with `add`; users run the check as `command ...check bufferutil-simd`
 * and the app with `app` on Node 26, unless `runs` says otherwise; `files` configure it. */
const manager = (label, kind, [command, tool], { add = [], check = [], app, ...rest }) => ({
  label,
  manager: kind,
  bin: { [command]: tool },
  install: [command, ['add', ...add, ADD]],
  runs: [{ ...RUNS.node26, check: [command, [...check, NAME]], ...(app && { app }) }],
  ...rest,
});
const MANAGERS = [
  {
    label: 'npm',
    manager: 'npm',
    // First the app alone: npm hoists WebSocket-Node's bufferutil, and the add command alone replaces it.
    before: async (project, options) => {
      npmQuiet(await run('npm', NPM, options));
      assert.equal(readJson(path.join(project, 'node_modules/bufferutil/package.json')).name, 'bufferutil');
      npmQuiet(await run('npm', [...NPM, ADD], options));
      assert.deepEqual(npmLocked(project), [`node_modules/bufferutil: ${NAME} ${VERSION}`]);
    },
    // Then one bufferutil in the lockfile, this package, and `npm ls` (non-zero on an invalid edge) agrees.
    after: async (project, options, installed) => {
      npmQuiet(installed);
      assert.deepEqual(npmLocked(project), [`node_modules/bufferutil: ${NAME} ${VERSION}`]);
      assert.match(readJson(path.join(project, 'node_modules/websocket/package.json')).dependencies.bufferutil, /^\^4\./);
      const { stdout } = await run('npm', ['ls', 'bufferutil', '--all', '--json'], options);
      assert.equal(JSON.parse(stdout).dependencies.websocket.dependencies.bufferutil.version, VERSION);
    },
    install: ['npm', [...NPM, ADD]],
    runs: [RUNS.node26, RUNS.node22].map((r) => ({ ...r, check: ['npm', ['exec', '--', NAME]] })),
  },
  // pnpm 12 reads the registry from .npmrc, not from npm_config_registry.
  manager('pnpm 12', 'pnpm', ['pnpm', 'pnpm'], {
    check: ['exec'],
    files: (url) => ({
      '.npmrc': `registry=${url}\n`,
      'pnpm-workspace.yaml': `overrides:\n  bufferutil: ${SPEC}\nallowBuilds:\n  es5-ext: false\n  utf-8-validate: false\n`,
    }),
  }),
  // As root Yarn 1 caches in /usr/local/share/.cache/yarn, whatever HOME says: a cache of the test's own.
  manager('Yarn 1', 'yarn', ['yarn', 'yarn1'], {
    add: ['--non-interactive', '--cache-folder', '../yarn1-cache'],
    check: ['--silent'],
    files: (url) => ({ '.yarnrc': `registry "${url}"\n` }),
  }),
  manager('Yarn 4 node-modules', 'yarn', ['yarn', 'yarn4'], { files: yarnrc('node-modules') }),
  manager('Yarn 4 PnP', 'yarn-pnp', ['yarn', 'yarn4'], { app: ['yarn', ['node', ...APP_ARGS]], files: yarnrc() }),
  manager('bun install', 'bun', ['bun', 'bun'], {
    runs: [RUNS.bun],
    files: (url) => ({ 'bunfig.toml': `[install]\nregistry = "${url}"\n` }),
  }),
  manager('deno install', 'deno', ['deno', 'deno'], { add: ['--minimum-dependency-age', '0'], runs: [RUNS.deno] }),
];

let [work, registry, env] = [];
serveRelease('bufferutil-simd-managers-', (served) => {
  ({ work, registry } = served);
  // Each manager's state in a home of its own, and nothing from the environment: npm run's npm_config_* (its user agent
  // too), CI (Yarn 4 installs immutably there), NODE_OPTIONS, WS_NO_BUFFER_UTIL, a level cap.
  const { CI, NODE_OPTIONS, WS_NO_BUFFER_UTIL, BUFFERUTIL_SIMD_LEVEL, ...rest } = process.env;
  env = Object.fromEntries(Object.entries(rest).filter(([name]) => !/^(npm|yarn|pnpm|bun|deno|xdg)_/i.test(name)));
  Object.assign(env, { HOME: path.join(work, 'home'), NO_COLOR: '1', NPM_CONFIG_REGISTRY: registry.url });
  env.DENO_DIR = path.join(work, 'deno-dir');
  fs.mkdirSync(env.HOME);
});

/** Options to run in `cwd` with Node `major` as `node` on PATH and the manager's executables under their own names. */
function inProject(cwd, bins, major = 26) {
  const dir = path.join(work, 'bin', `${path.basename(cwd)}-node-${major}`);
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir, { recursive: true });
    fs.symlinkSync(ensureNode(major), path.join(dir, 'node'));
    for (const [name, tool] of Object.entries(bins ?? {})) {
      const file = npmRuntime([...RUNTIMES, ...TOOLS].find((entry) => entry.name === tool));
      if (file.endsWith('.js'))
        fs.writeFileSync(path.join(dir, name), `#!/bin/sh\nexec "${ensureNode(26)}" "${file}" "$@"\n`, { mode: 0o755 });
      else fs.symlinkSync(file, path.join(dir, name));
    }
  }
  return { cwd, env: { ...env, PATH: [dir, env.PATH].join(path.delimiter) } };
}

/** Each folder named bufferutil in the project (nested, .pnpm, .deno, a file: dependency's own) holding bufferutil itself. */
function originals(project) {
  const held = (entry) =>
    fs.existsSync(path.join(project, entry, 'package.json')) && readJson(path.join(project, entry, 'package.json'));
  const folders = fs.readdirSync(project, { recursive: true }).filter((entry) => path.basename(entry) === 'bufferutil');
  return folders.filter((entry) => held(entry)?.name === 'bufferutil').map((entry) => `${entry} (${held(entry).version})`);
}

/** The check and the app in `project` on run `r`'s runtime: what the check says each caller uses, held to the calls. */
async function checkAndCount(t, m, r, project) {
  const options = inProject(project, m.bin, r.node ?? 26);
  const check = async (...flags) => (await run(r.check[0], [...r.check[1], ...flags, '--no-bench'], options)).stdout;
  const text = await check();
  for (const line of text.trimEnd().split('\n')) t.diagnostic(line);
  const report = JSON.parse(await check('--json'));
  assert.equal(report.manager, m.manager, 'the package manager the check names');
  assert.equal(report.native, true, `${NAME} loaded without its addon: ${report.reason}`);
  assert.match(report.runtime, r.runtime);
  assert.equal(report.switch ?? null, null, 'the check asks for a switch where every copy is this package');
  await r.also?.(options);
  // What each caller should use here: WebSocket-Node this package; ws by its version (core's from 8.22.1).
  const expected = (name, version) => ({ websocket: NAME, ws: r.ws[Number(older(version))] })[name];

  const file = path.join(work, `calls-${path.basename(project)}-${r.node ?? 26}.json`);
  await run(...r.app, { ...options, env: { ...options.env, CALLS: file }, timeout: 120_000 });
  const calls = readJson(file);
  t.diagnostic(calls.map((c) => `${c.phase}: ${c.package} ${c.op} ${c.length}`).join(', '));

  if (m.manager === 'yarn-pnp') {
    // No node_modules to read: the check says it cannot list callers, and the calls arrive all the same.
    assert.equal(report.consumers, null);
    assert.match(text, /^callers +.*Yarn PnP/m);
  } else {
    assert.equal(report.bufferutil.name, NAME);
    const lists = (want) => report.consumers.some(({ name, version }) => `${name}@${version}`.startsWith(want));
    for (const want of [`websocket@${DEPENDENCIES.websocket}`, `ws@${DEPENDENCIES.ws}`, 'ws@8.21.'])
      assert.ok(lists(want), `the check does not list ${want}`);
    // Every file that called belongs to a package the check listed; each listed as loading this package called.
    const real = fs.realpathSync(project);
    const made = Object.fromEntries(report.consumers.map(({ path: at }) => [at, 0]));
    const paths = Object.keys(made).sort();
    for (const { file: caller } of calls) {
      const relative = path.relative(real, caller).replaceAll(path.sep, '/');
      const at = paths.findLast((consumer) => relative.startsWith(`${consumer}/`)); // the innermost
      assert.ok(at, `${relative} called, and the check did not name it`);
      made[at]++;
    }
    for (const { name, version, path: at, uses } of report.consumers) {
      assert.equal(uses, expected(name, version), `${name} ${version} (${at}): what the check says it uses`);
      if (uses === NAME) assert.ok(made[at] > 0, `${name} ${version} (${at}): said to load ${NAME}, made no call`);
    }
  }

  // Calls come only from a package that loads this package here, WebSocket-Node's in its phase, ws's from its thresholds.
  for (const { phase, package: at, op, length } of calls) {
    const [name, version] = String(at).split('@');
    assert.equal(expected(name, version), NAME, `${at} called ${op}, and should not load ${NAME} here`);
    assert.equal(phase === 'WebSocket-Node', name === 'websocket', `${at} called ${op} in the ${phase} phase`);
    if (name === 'ws') assert.ok(length >= (op === 'mask' ? WS_MASK_FROM : WS_UNMASK_FROM), `${at}: ${op} of ${length} B`);
  }
  const lengths = (phase, op, inPlace) =>
    calls.filter((c) => c.phase === phase && c.op === op && (inPlace ?? c.inPlace) === c.inPlace).map((c) => c.length);
  const reached = (got, sizes, from, what) => {
    for (const size of sizes.filter((n) => n >= from)) assert.ok(got.includes(size), `${what}: no call for ${size} B`);
  };
  // WebSocket-Node: the client masks every frame, empty ones too; the server unmasks every non-empty one.
  const [masks, unmasks] = [lengths('WebSocket-Node', 'mask'), lengths('WebSocket-Node', 'unmask')];
  assert.deepEqual([masks, unmasks], [SIZES.ws, SIZES.ws.filter(Boolean)], 'WebSocket-Node: masks, unmasks');
  // ws masks a text message in place and copies a Buffer it may not write to into the frame. Only clients mask and
  // only servers unmask: socket.io's client is engine.io-client's ws ~8.21, the pinned server's too; the other
  // server's ws is ~8.21 or 8.23 as the manager resolves engine.io, so it counts where both load this package.
  if (r.ws[0] === NAME) {
    for (const inPlace of [true, false])
      reached(lengths('ws', 'mask', inPlace), SIZES.ws, WS_MASK_FROM, `ws: mask${inPlace ? ' in place' : ''}`);
    reached(lengths('ws', 'unmask'), SIZES.ws, WS_UNMASK_FROM, 'ws: unmask');
    reached(lengths('socket.io', 'unmask'), SIZES.socketIo, WS_UNMASK_FROM, "socket.io's server: unmask");
  }
  if (r.ws[1] === NAME) {
    for (const phase of ['socket.io', 'socket.io pinned'])
      reached(lengths(phase, 'mask'), SIZES.socketIo, WS_MASK_FROM, `${phase}: the client's mask`);
    reached(lengths('socket.io pinned', 'unmask'), SIZES.socketIo, WS_UNMASK_FROM, 'engine.io 6.6.12: unmask');
  }
}

for (const m of MANAGERS) {
  test(`${m.label}: no bufferutil 4.1.0 left; every caller in the app loads this package`, { timeout: 300_000 }, async (t) => {
    const project = path.join(work, m.label.replace(/\W+/g, '-'));
    fs.mkdirSync(path.join(project, PINNING.name), { recursive: true });
    writeJson(path.join(project, PINNING.name, 'package.json'), PINNING);
    const manifest = path.join(project, 'package.json');
    writeJson(manifest, { name: 'app', private: true, dependencies: DEPENDENCIES });
    const files = { ...m.files?.(registry.url), 'preload.cjs': PRELOAD, 'app.cjs': APP };
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(project, file), text);
    const options = inProject(project, m.bin);

    await m.before?.(project, options);
    const [kind, { dependencies, ...rest }] = [m.manager.replace('-pnp', ''), readJson(manifest)];
    Object.assign(rest, PIN[kind] && { [PIN[kind]]: { bufferutil: SPEC } });
    writeJson(manifest, { ...rest, dependencies: { ...dependencies, [PINNING.name]: `file:./${PINNING.name}` } });
    const started = Date.now();
    const installed = await run(...m.install, options);
    t.diagnostic(`${m.install[0]} ${m.install[1].join(' ')}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    assert.equal(readJson(manifest).dependencies.bufferutil, SPEC);
    const lock = fs.readFileSync(path.join(project, LOCKFILE[kind]), 'utf8');
    assert.ok(lock.includes(NAME), `${LOCKFILE[kind]} does not name ${NAME}`);
    assert.doesNotMatch(lock, ORIGINAL, `${LOCKFILE[kind]} holds bufferutil 4.1.0`);
    assert.deepEqual(originals(project), [], 'bufferutil 4.1.0 is on disk');
    await m.after?.(project, options, installed);

    for (const r of m.runs) await t.test(`on ${r.label}`, (t) => checkAndCount(t, m, r, project));
  });
}

test("A deno.json alone: its imports give the project's own code this package, never ws's require('bufferutil')", async (t) => {
  const project = path.join(work, 'deno-json');
  fs.mkdirSync(project);
  const imports = { bufferutil: SPEC, ws: 'npm:ws@8.21.3', websocket: `npm:websocket@${DEPENDENCIES.websocket}` };
  const scopes = { [imports.ws]: { bufferutil: SPEC } }; // for ws's own imports, too
  writeJson(path.join(project, 'deno.json'), { imports, scopes, minimumDependencyAge: 0 });
  // What the project's import gets, and what ws's own require('bufferutil') resolves to (nothing, or WebSocket-Node's).
  const main = `import { createRequire } from 'node:module'; import ours from 'bufferutil'; import 'websocket'; import 'ws';
    let ws;
    try { ws = createRequire(import.meta.resolve('ws')).resolve('bufferutil'); } catch (error) { ws = error.code; }
    console.log(JSON.stringify({ ours: ours.backend, ws }));`;
  fs.writeFileSync(path.join(project, 'main.mjs'), main);
  const options = inProject(project, { deno: 'deno' });
  const { ours, ws } = JSON.parse((await run('deno', ['run', '-A', 'main.mjs'], options)).stdout);
  t.diagnostic(`the project's bufferutil: backend ${ours}; ws's require('bufferutil'): ${ws}`);
  assert.match(ours, /^(avx512|avx2|sse2|neon|scalar|wasm|js)$/, "the project's import is this package");
  // The import map's scope ends at the project's own modules: ws's require finds the bufferutil 4.1.0 WebSocket-Node
  // brings, or none. Should it ever reach this package, the README's "cannot" is wrong.
  assert.match(ws, /^MODULE_NOT_FOUND$|[\\/]bufferutil[\\/]4\.1\.0[\\/]/);
});
