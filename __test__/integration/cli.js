'use strict';

// `npx bufferutil-simd` held to what an app really does. A project with a socket.io server and client (websocket
// transport) and WebSocket-Node, this package installed as its `bufferutil` from the release tarballs, runs one small
// app on Node 26.12, Node 22, Bun and Deno with a preload that counts the mask and unmask calls reaching the package,
// by the package whose code made each call. Every package the command (run by the same runtime) says loads this package
// must have made calls, every other none, and no call comes from a package it did not name. Then `bunx` without --bun,
// and Deno without its permission flags.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { rootManifest, packRelease, tempDir } = require('../../scripts/lib/packages');
const { HOME, RUNTIMES, cached, ensureNode, npmRuntime } = require('../../scripts/lib/runtimes');

const NAME = rootManifest.name;
// The app's dependencies, pinned: engine.io-client 6.6.8 nests ws ~8.21 (no core path), engine.io 6.6.13 takes ws ^8.23.
const DEPENDENCIES = { 'socket.io': '4.8.4', 'socket.io-client': '4.8.4', websocket: '1.0.35' };

// Wraps the package's exports (the object every `require('bufferutil')` in the project gets) and, at exit, writes
// to $COUNTS how many mask and unmask calls came from each file.
const PRELOAD = `
const fs = require('node:fs');
const lib = require(require('node:path').resolve('node_modules/bufferutil'));
const counts = {};
function callerFile() {
  const prepare = Error.prepareStackTrace;
  Error.prepareStackTrace = (_, frames) => frames;
  const frames = new Error().stack;
  Error.prepareStackTrace = prepare;
  return frames[2].getFileName();
}
for (const op of ['mask', 'unmask']) {
  const original = lib[op];
  lib[op] = function (...args) {
    const file = callerFile();
    counts[file] ??= { mask: 0, unmask: 0 };
    counts[file][op]++;
    return original.apply(this, args);
  };
}
process.on('exit', () => fs.writeFileSync(process.env.COUNTS, JSON.stringify(counts)));
`;

// A socket.io echo over the websocket transport, then a WebSocket-Node exchange, each message above ws's JavaScript
// thresholds (48 B mask, 32 B unmask).
const APP = `
const http = require('node:http');
const { Server } = require('socket.io');
const { io } = require('socket.io-client');
const { server: WebSocketServer, client: WebSocketClient } = require('websocket');
const SIZES = [100, 16384];
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

async function socketIo() {
  const httpServer = http.createServer();
  const server = new Server(httpServer, { transports: ['websocket'] });
  server.on('connection', (socket) => socket.on('echo', (data, ack) => ack(data)));
  await listen(httpServer);
  const options = { transports: ['websocket'], reconnection: false, forceNew: true };
  const socket = io('http://127.0.0.1:' + httpServer.address().port, options);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('connect_error', reject));
  for (const size of SIZES) await socket.timeout(20000).emitWithAck('echo', Buffer.alloc(size, 7));
  socket.disconnect();
  await new Promise((resolve) => server.close(resolve));
}

async function websocketNode() {
  const httpServer = http.createServer();
  await listen(httpServer);
  const server = new WebSocketServer({ httpServer, autoAcceptConnections: false, keepalive: false });
  server.on('request', (request) => {
    const connection = request.accept(null, request.origin);
    connection.on('message', (message) => connection.sendBytes(message.binaryData));
  });
  const client = new WebSocketClient();
  const connection = await new Promise((resolve, reject) => {
    client.once('connect', resolve).once('connectFailed', reject);
    client.connect('ws://127.0.0.1:' + httpServer.address().port + '/');
  });
  for (const size of SIZES) {
    connection.sendBytes(Buffer.alloc(size, 7));
    await new Promise((resolve) => connection.once('message', resolve));
  }
  await new Promise((resolve) => connection.once('close', resolve).close());
  server.shutDown();
  await new Promise((resolve) => httpServer.close(resolve));
}

socketIo().then(websocketNode).then(() => process.exit(0), (error) => { console.error(error); process.exit(1); });
`;

let work;
let project;

before(
  () => {
    delete process.env.WS_NO_BUFFER_UTIL;
    delete process.env.BUFFERUTIL_SIMD_LEVEL;
    work = tempDir('bufferutil-simd-cli-app-');
    const release = packRelease(work);
    // The third-party install, cached by what it pins; the real bufferutil WebSocket-Node brings is replaced below.
    const key = crypto.createHash('sha256').update(JSON.stringify(DEPENDENCIES)).digest('hex').slice(0, 12);
    const installed = cached(path.join(HOME, `cli-app-${key}`), 'package-lock.json', 'the app', (staging) => {
      fs.writeFileSync(
        path.join(staging, 'package.json'),
        JSON.stringify({ name: 'app', private: true, dependencies: DEPENDENCIES })
      );
      execFileSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-update-notifier'], { cwd: staging });
    });
    project = path.join(work, 'app');
    fs.cpSync(path.dirname(installed), project, { recursive: true });
    // As `npm install bufferutil@npm:bufferutil-simd` lays it out: the package as node_modules/bufferutil, its
    // platform package beside it, the command linked in node_modules/.bin.
    const modules = path.join(project, 'node_modules');
    for (const [tarball, dir] of [
      [release.main, 'bufferutil'],
      [release.platforms[release.hostPlatform], release.hostPlatform],
    ]) {
      fs.rmSync(path.join(modules, dir), { recursive: true, force: true });
      fs.mkdirSync(path.join(modules, dir));
      execFileSync('tar', ['-xzf', tarball, '-C', path.join(modules, dir), '--strip-components=1']);
    }
    fs.rmSync(path.join(modules, '.bin', NAME), { force: true });
    fs.symlinkSync(path.join('..', 'bufferutil', 'bin', `${NAME}.js`), path.join(modules, '.bin', NAME));
    // CommonJS by name: Deno reads a .js file beside a package.json without "type" as an ES module.
    fs.writeFileSync(path.join(project, 'preload.cjs'), PRELOAD);
    fs.writeFileSync(path.join(project, 'app.cjs'), APP);
  },
  { timeout: 600_000 }
);

after(() => {
  if (work && !process.env.KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

/** The command in the project, run by `runtime` with `args` before the file; `{ status, stdout, stderr }`. */
function command(runtime, args, runtimeArgs = []) {
  const bin = path.join(project, 'node_modules', 'bufferutil', 'bin', `${NAME}.js`);
  const env = { ...process.env, NO_COLOR: '1' };
  return spawnSync(runtime, [...runtimeArgs, bin, ...args], { cwd: project, encoding: 'utf8', env });
}

/** The calls into the package per consumer path (relative to the project) when the app runs; fails on a call from elsewhere. */
function countCalls(t, runtime, args, consumers) {
  const file = path.join(work, `counts-${crypto.randomUUID()}.json`);
  const run = spawnSync(runtime, [...args, 'app.cjs'], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, COUNTS: file },
    timeout: 120_000,
  });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  const calls = Object.fromEntries(consumers.map(({ path: at }) => [at, 0]));
  for (const [caller, { mask, unmask }] of Object.entries(JSON.parse(fs.readFileSync(file, 'utf8')))) {
    const relative = path.relative(fs.realpathSync(project), caller).replaceAll(path.sep, '/');
    const owner = consumers.map(({ path: at }) => at).filter((at) => relative.startsWith(`${at}/`));
    const at = owner.sort((a, b) => b.length - a.length)[0];
    assert.ok(at, `${mask} mask and ${unmask} unmask calls from ${relative}, which the command did not name`);
    calls[at] += mask + unmask;
    t.diagnostic(`${relative}: ${mask} mask, ${unmask} unmask`);
  }
  return calls;
}

const runtime = (name) => npmRuntime(RUNTIMES.find((entry) => entry.name === name));
const DENO_FLAGS = ['--allow-read', '--allow-env', '--allow-sys', '--allow-ffi'];
// How each runtime runs the command and the app (with the counting preload), and what the ws server (hoisted,
// 8.23) and engine.io-client's ws (~8.21) use there: ws ≥ 8.22.1 takes core's function on Node ≥ 26.12, Bun answers
// `require('ws')` with its own, and WebSocket-Node loads this package everywhere.
const RUNS = [
  ['Node 26.12', () => ensureNode(26), [], ['--require', './preload.cjs'], ['core', NAME]],
  ['Node 22', () => ensureNode(22), [], ['--require', './preload.cjs'], [NAME, NAME]],
  ['Bun', () => runtime('bun'), [], ['--preload', './preload.cjs'], ['bun', 'bun']],
  ['Deno', () => runtime('deno'), ['run', ...DENO_FLAGS], ['run', '-A', '--require', './preload.cjs'], [NAME, NAME]],
];

for (const [label, bin, commandArgs, appArgs, [server, client]] of RUNS) {
  test(`${label}: each package the command says loads this package calls it, and no other does`, { timeout: 300_000 }, (t) => {
    const exe = bin();
    const text = command(exe, ['--no-bench'], commandArgs);
    assert.equal(text.status, 0, text.stderr);
    for (const line of text.stdout.trimEnd().split('\n')) t.diagnostic(line);
    const report = JSON.parse(command(exe, ['--json', '--no-bench'], commandArgs).stdout);
    assert.match(report.runtime, new RegExp(`^${label.split(' ')[0]} v?\\d+\\.\\d+\\.\\d+$`));
    const uses = Object.fromEntries(
      report.consumers.map(({ name, version, path: at, uses: what }) => [at, [name, version, what]])
    );
    assert.equal(uses['node_modules/ws'][2], server);
    assert.match(uses['node_modules/engine.io-client/node_modules/ws'][1], /^8\.21\./);
    assert.equal(uses['node_modules/engine.io-client/node_modules/ws'][2], client);
    assert.deepEqual(uses['node_modules/websocket'], ['websocket', DEPENDENCIES.websocket, NAME]);
    const calls = countCalls(t, exe, appArgs, report.consumers);
    for (const { name, version, path: at, uses: what } of report.consumers) {
      if (what === NAME) assert.ok(calls[at] > 0, `${name} ${version} (${at}): said to load ${NAME}, made no call`);
      else assert.equal(calls[at], 0, `${name} ${version} (${at}): said to use ${what}, made ${calls[at]} calls`);
    }
  });
}

test("bunx without --bun: Node's answer, saying so and naming bunx --bun", () => {
  const bunx = spawnSync(runtime('bun'), ['x', NAME, '--no-bench'], { cwd: project, encoding: 'utf8' });
  assert.equal(bunx.status, 0, bunx.stderr);
  assert.match(bunx.stdout, /^bufferutil-simd \S+ · Node v/);
  assert.match(bunx.stdout, /^runtime +bunx ran this in Node: this is Node's answer; for Bun's, bunx --bun bufferutil-simd$/m);
});

test('Deno without its permission flags: one line naming them', () => {
  const bare = command(runtime('deno'), ['--no-bench'], ['run']);
  assert.equal(bare.status, 1);
  assert.equal(bare.stderr, `${NAME}: Deno needs ${DENO_FLAGS.join(' ')} (not granted: read,env,sys,ffi)\n`);
});
