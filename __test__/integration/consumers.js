'use strict';

// Who calls this package, on which runtime, and whether `npx bufferutil-simd` says so. One project installs ws, a
// socket.io server and client, a socket.io server on engine.io 6.6.12 (ws ~8.21, as older lockfiles hold it) and
// WebSocket-Node from a throwaway local registry that serves the release tarballs and proxies the rest to npm, then
// `bufferutil@npm:bufferutil-simd@^4.2.0` as the README says for npm (every manager's line: managers.js). One app
// echoes messages through each of them, every byte checked, on Node 26.12, Node 22, Bun and Deno, with a preload that
// records every mask and unmask call reaching the package by the file that made it. Every package the command (run by
// the same runtime) says loads this package must have made calls, every other none, and no call comes from a package it
// did not name; ws's calls start at its thresholds, and WebSocket-Node's are one per frame.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { rootManifest, packRelease, tempDir, userProject, run, npmInstall } = require('../../scripts/lib/packages');
const { startRegistry } = require('../../scripts/lib/registry');
const { RUNTIMES, ensureNode, npmRuntime } = require('../../scripts/lib/runtimes');

const { DEPENDENCIES, SIZES, WS_MASK_FROM, WS_UNMASK_FROM, PRELOAD, APP } = require('./mixed-app');

const NAME = rootManifest.name;
const WS = 'node_modules/ws';
const WS_CLIENT = 'node_modules/engine.io-client/node_modules/ws';
const WS_PINNED = 'node_modules/engine.io-pinned/node_modules/ws';

let work;
let registry;
let project;
const installs = {};

before(
  async () => {
    // Either one would keep ws away from bufferutil, or this package away from its addon.
    delete process.env.WS_NO_BUFFER_UTIL;
    delete process.env.BUFFERUTIL_SIMD_LEVEL;
    work = tempDir('bufferutil-simd-consumers-');
    const release = packRelease(work);
    registry = await startRegistry([release.main, ...Object.values(release.platforms)]);
    project = userProject(work, 'app');
    // An app that already has WebSocket-Node (which brings the real bufferutil), then the README's one-liner.
    const dependencies = Object.entries(DEPENDENCIES).map(([name, spec]) => `${name}@${spec}`);
    installs.before = await npmInstall(project, registry.url, dependencies);
    installs.bufferutilBefore = manifestAt('node_modules/bufferutil').name;
    installs.alias = await npmInstall(project, registry.url, [`bufferutil@npm:${NAME}@^${rootManifest.version}`]);
    // CommonJS by name: Deno reads a .js file beside a package.json without "type" as an ES module.
    fs.writeFileSync(path.join(project, 'preload.cjs'), PRELOAD);
    fs.writeFileSync(path.join(project, 'app.cjs'), APP);
  },
  { timeout: 600_000 }
);

after(async () => {
  await registry?.close();
  if (work && !process.env.KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

const manifestAt = (relative) => JSON.parse(fs.readFileSync(path.join(project, relative, 'package.json'), 'utf8'));

test('npm puts this package in node_modules/bufferutil and serves every bufferutil ^4 in the tree with it', async () => {
  for (const { stdout, stderr } of [installs.before, installs.alias])
    assert.doesNotMatch(stdout + stderr, /ERESOLVE|peer|conflict|invalid/i, stdout + stderr);
  assert.equal(manifestAt('.').dependencies.bufferutil, `npm:${NAME}@^${rootManifest.version}`);
  // Before the alias WebSocket-Node's real bufferutil was there: the alias replaced it, it did not land beside it.
  assert.equal(installs.bufferutilBefore, 'bufferutil');
  assert.equal(manifestAt('node_modules/bufferutil').name, NAME);
  assert.match(manifestAt('node_modules/websocket').dependencies.bufferutil, /^\^4\./);
  const lock = JSON.parse(fs.readFileSync(path.join(project, 'package-lock.json'), 'utf8'));
  const locked = Object.entries(lock.packages).filter(([where]) => /(^|\/)node_modules\/bufferutil$/.test(where));
  assert.deepEqual(
    locked.map(([where, entry]) => [where, entry.name]),
    [['node_modules/bufferutil', NAME]],
    'the lockfile holds one bufferutil, this package'
  );
  // npm itself agrees the tree satisfies every range (`npm ls` exits non-zero on an invalid edge).
  const { stdout } = await run('npm', ['ls', 'bufferutil', '--all', '--json'], { cwd: project });
  assert.equal(JSON.parse(stdout).dependencies.websocket.dependencies.bufferutil.version, rootManifest.version);
  assert.doesNotMatch(stdout, /"(invalid|missing|problems)"/);
});

/** The command in the project, run by `runtime` with `args` before the file; `{ status, stdout, stderr }`. */
function command(runtime, args, runtimeArgs = []) {
  const bin = path.join(project, 'node_modules', 'bufferutil', 'bin', `${NAME}.js`);
  const env = { ...process.env, NO_COLOR: '1' };
  return spawnSync(runtime, [...runtimeArgs, bin, ...args], { cwd: project, encoding: 'utf8', env });
}

/** The calls into the package per consumer path when the app runs (`{ mask, unmask }`); fails on a call from elsewhere. */
function recordCalls(t, runtime, args, consumers) {
  const file = path.join(work, `calls-${crypto.randomUUID()}.json`);
  const app = spawnSync(runtime, [...args, 'app.cjs'], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, CALLS: file, SIZES: JSON.stringify(SIZES) },
    timeout: 120_000,
  });
  assert.equal(app.status, 0, `${app.stdout}${app.stderr}`);
  const calls = Object.fromEntries(consumers.map(({ path: at }) => [at, { mask: [], unmask: [] }]));
  for (const [caller, { mask, unmask }] of Object.entries(JSON.parse(fs.readFileSync(file, 'utf8')))) {
    const relative = path.relative(fs.realpathSync(project), caller).replaceAll(path.sep, '/');
    const at = Object.keys(calls)
      .filter((consumer) => relative.startsWith(`${consumer}/`))
      .sort((a, b) => b.length - a.length)[0];
    assert.ok(at, `${mask.length} mask and ${unmask.length} unmask calls from ${relative}, which the command did not name`);
    calls[at].mask.push(...mask);
    calls[at].unmask.push(...unmask);
    t.diagnostic(`${relative}: ${mask.length} mask, ${unmask.length} unmask`);
  }
  return calls;
}

/** A ws copy's calls: none below its thresholds, and each of `sizes` from them up among them. */
function assertWsCalls(at, lengths, sizes, from, what) {
  assert.ok(Math.min(...lengths) >= from, `${at}: ${what} called on a frame below ${from} B`);
  for (const size of sizes.filter((n) => n >= from))
    assert.ok(lengths.includes(size), `${at}: the ${size}-byte frame did not reach ${what}`);
}

const runtime = (name) => npmRuntime(RUNTIMES.find((entry) => entry.name === name));
const DENO_FLAGS = ['--allow-read', '--allow-env', '--allow-sys', '--allow-ffi'];
// How each runtime runs the command and the app (with the recording preload), and what the hoisted ws (8.23) and the
// nested ws ~8.21 use there: ws ≥ 8.22.1 takes core's function on Node ≥ 26.12, Bun answers `require('ws')` with
// its own, and WebSocket-Node loads this package everywhere.
const RUNS = [
  ['Node 26.12', () => ensureNode(26), [], ['--require', './preload.cjs'], ['core', NAME]],
  ['Node 22', () => ensureNode(22), [], ['--require', './preload.cjs'], [NAME, NAME]],
  ['Bun', () => runtime('bun'), [], ['--preload', './preload.cjs'], ['bun', 'bun']],
  ['Deno', () => runtime('deno'), ['run', ...DENO_FLAGS], ['run', '-A', '--require', './preload.cjs'], [NAME, NAME]],
];

for (const [label, bin, commandArgs, appArgs, [hoisted, nested]] of RUNS) {
  test(`${label}: each package the command says loads this package calls it, and no other does`, { timeout: 300_000 }, (t) => {
    const exe = bin();
    const text = command(exe, ['--no-bench'], commandArgs);
    assert.equal(text.status, 0, text.stderr);
    for (const line of text.stdout.trimEnd().split('\n')) t.diagnostic(line);
    const report = JSON.parse(command(exe, ['--json', '--no-bench'], commandArgs).stdout);
    assert.match(report.runtime, new RegExp(`^${label.split(' ')[0]} v?\\d+\\.\\d+\\.\\d+$`));
    assert.equal(report.native, true, `${NAME} loaded without its addon: ${report.reason}`);
    const uses = Object.fromEntries(
      report.consumers.map(({ name, version, path: at, uses: what }) => [at, [name, version, what]])
    );
    assert.equal(uses[WS][2], hoisted);
    for (const at of [WS_CLIENT, WS_PINNED]) assert.deepEqual([uses[at][1].slice(0, 5), uses[at][2]], ['8.21.', nested]);
    assert.deepEqual(uses['node_modules/websocket'], ['websocket', DEPENDENCIES.websocket, NAME]);

    const calls = recordCalls(t, exe, appArgs, report.consumers);
    for (const { name, version, path: at, uses: what } of report.consumers) {
      const made = calls[at].mask.length + calls[at].unmask.length;
      if (what === NAME) assert.ok(made > 0, `${name} ${version} (${at}): said to load ${NAME}, made no call`);
      else assert.equal(made, 0, `${name} ${version} (${at}): said to use ${what}, made ${made} calls`);
    }
    const masks = (at, inPlace) =>
      calls[at].mask.filter(([, where]) => inPlace === undefined || where === inPlace).map(([length]) => length);
    // WebSocket-Node: the client masks every frame, empty ones too; the server unmasks every non-empty one.
    assert.deepEqual(masks('node_modules/websocket'), SIZES.ws, 'WebSocket-Node masks');
    assert.deepEqual(
      calls['node_modules/websocket'].unmask,
      SIZES.ws.filter((size) => size > 0),
      'WebSocket-Node unmasks'
    );
    // ws masks a text message in place and copies a Buffer it may not write to into the frame.
    if (hoisted === NAME) {
      assertWsCalls(WS, masks(WS, true), SIZES.ws, WS_MASK_FROM, 'mask in place');
      assertWsCalls(WS, masks(WS, false), SIZES.ws, WS_MASK_FROM, 'mask into the frame');
      assertWsCalls(WS, calls[WS].unmask, [...SIZES.ws, ...SIZES.socketIo], WS_UNMASK_FROM, 'unmask');
    }
    if (nested === NAME) {
      assertWsCalls(WS_CLIENT, masks(WS_CLIENT), SIZES.socketIo, WS_MASK_FROM, 'mask');
      assertWsCalls(WS_PINNED, calls[WS_PINNED].unmask, SIZES.socketIo, WS_UNMASK_FROM, 'unmask');
    }
  });
}

test("bunx without --bun: Node's answer, saying so and naming bunx --bun", () => {
  // As typed in a shell: under `npm run`, npm's user agent would be inherited and name npm as the launcher.
  const env = { ...process.env, npm_config_user_agent: undefined };
  const bunx = spawnSync(runtime('bun'), ['x', NAME, '--no-bench'], { cwd: project, encoding: 'utf8', env });
  assert.equal(bunx.status, 0, bunx.stderr);
  assert.match(bunx.stdout, /^bufferutil-simd \S+ · Node v/);
  assert.match(bunx.stdout, /^runtime +bunx ran this in Node: this is Node's answer; for Bun's, bunx --bun bufferutil-simd$/m);
});

test('Deno without its permission flags: one line naming them', () => {
  const bare = command(runtime('deno'), ['--no-bench'], ['run']);
  assert.equal(bare.status, 1);
  assert.equal(bare.stderr, `${NAME}: Deno needs ${DENO_FLAGS.join(' ')} (not granted: read,env,sys,ffi)\n`);
});
