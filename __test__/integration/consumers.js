'use strict';

// The callers that still hand frames to a `bufferutil` where ws ≥ 8.22.1 on Node 26 no longer does, set up
// as their users set them up (this package installed as `bufferutil@npm:bufferutil-simd`, from a throwaway
// local registry that serves the release tarballs and proxies everything else to npm), then a server and a
// client on 127.0.0.1 echoing messages, every byte checked, with every call into the package recorded:
//
// - WebSocket-Node (`websocket` 1.0.35): `bufferutil ^4.0.1` is a hard dependency; lib/WebSocketFrame.js
//   masks every outgoing client frame and unmasks every non-empty incoming masked frame through it, at every
//   size and on every Node line. npm must dedupe that dependency onto the alias (no nested real bufferutil).
// - socket.io + socket.io-client, websocket transport only: each side has its own ws. engine.io-client
//   pins ws ~8.21, which has no `http.websocketMask` path, so the client masks through bufferutil on every
//   Node line (≥ 48 B). engine.io ≥ 6.6.13 takes ws ^8.23, which on Node 26 unmasks with core (≥ 24 B);
//   engine.io ≤ 6.6.12 (ws ≤ ~8.21, still in lockfiles) unmasks through bufferutil there too (≥ 32 B).
//   Both servers are tested; what each side must call follows from the ws each resolved and this Node.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { createRequire } = require('node:module');
const { rootManifest, packRelease, tempDir, userProject, run, npmInstall } = require('../../scripts/lib/packages');
const { startRegistry } = require('../../scripts/lib/registry');
const { randomText } = require('../helpers/random-text');
const { inbox } = require('../helpers/inbox');

const KiB = 1024;
const MiB = 1024 * KiB;
// 7-bit, 16-bit and 64-bit payload lengths, each side of every boundary, and one large odd size.
const SIZES = [0, 1, 125, 126, 127, 65535, 65536, MiB + 3];
const SOCKET_IO_SIZES = [1, 100, 16 * KiB, 64 * KiB, MiB + 3];
// ws (bufferutil path, 8.x) masks in JavaScript below 48 B and unmasks in JavaScript below 32 B.
const WS_MASK_FROM = 48;
const WS_UNMASK_FROM = 32;
const BACKENDS = ['avx512', 'avx2', 'sse2', 'neon', 'scalar', 'wasm', 'js'];
const NATIVE_BACKENDS = ['avx512', 'avx2', 'sse2', 'neon', 'scalar'];
const WEBSOCKET_NODE = '1.0.35';
// The last engine.io whose ws (~8.21) has no core path; 6.6.13 (2026-11-23) moved to ws ^8.23.
const ENGINE_IO_WITHOUT_CORE = '6.6.12';
const TEST_TIMEOUT = 60_000;

const nodeHasWebsocketMask = typeof http.websocketMask === 'function';

let work;
let registry;
const projects = {};
const installs = {};

before(
  async () => {
    // Either one would keep ws away from bufferutil, or this package away from its addon.
    delete process.env.WS_NO_BUFFER_UTIL;
    delete process.env.BUFFERUTIL_SIMD_LEVEL;
    work = tempDir('bufferutil-simd-consumers-');
    const release = packRelease(work);
    registry = await startRegistry([release.main, ...Object.values(release.platforms)]);
    const alias = `bufferutil@npm:${rootManifest.name}`;

    projects.websocket = userProject(work, 'websocket-node-user');
    projects.socketIo = userProject(work, 'socket-io-user');
    projects.socketIoPinned = userProject(work, 'socket-io-engine-io-6.6.12-user');
    // As a lockfile from before engine.io 6.6.13 would have it.
    const pinnedManifest = path.join(projects.socketIoPinned, 'package.json');
    fs.writeFileSync(
      pinnedManifest,
      JSON.stringify(
        { ...JSON.parse(fs.readFileSync(pinnedManifest, 'utf8')), overrides: { 'engine.io': ENGINE_IO_WITHOUT_CORE } },
        null,
        2
      )
    );

    await Promise.all([
      (async () => {
        // An app that already uses WebSocket-Node (which brings the real bufferutil), then the documented
        // one-liner: npm must put this package in node_modules/bufferutil and serve websocket's dependency with it.
        installs.websocketBefore = await npmInstall(projects.websocket, registry.url, [`websocket@${WEBSOCKET_NODE}`]);
        installs.websocketBeforeName = manifestAt(projects.websocket, 'node_modules/bufferutil').name;
        installs.websocket = await npmInstall(projects.websocket, registry.url, [alias]);
      })(),
      (async () => {
        installs.socketIo = await npmInstall(projects.socketIo, registry.url, ['socket.io', 'socket.io-client', alias]);
      })(),
      (async () => {
        installs.socketIoPinned = await npmInstall(projects.socketIoPinned, registry.url, [
          'socket.io',
          'socket.io-client',
          alias,
        ]);
      })(),
    ]);
  },
  { timeout: 300_000 }
);

after(async () => {
  await registry?.close();
  if (work && !process.env.KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

function manifestAt(dir, relative = '.') {
  return JSON.parse(fs.readFileSync(path.join(dir, relative, 'package.json'), 'utf8'));
}

/**
 * The folder of package `name` as `require` finds it from `fromDir`: the `node_modules/<name>` its entry
 * resolves into (some packages export no package.json, and some have a package.json of their own in their build folders).
 */
function packageDir(fromDir, name) {
  const entry = createRequire(path.join(fromDir, 'package.json')).resolve(name);
  const marker = `${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}${path.sep}`;
  const at = entry.lastIndexOf(marker);
  if (at < 0) throw new Error(`${name} resolved outside node_modules: ${entry}`);
  return entry.slice(0, at + marker.length - 1);
}

/**
 * The ws that `chain` (package names, each required by the one before, from the project) ends at: who
 * requires it (`engine.io 6.6.13`), its version, whether its lib/buffer-util.js has the
 * `http.websocketMask` path, and the file its `require('bufferutil')` gets.
 */
function wsAlong(project, chain) {
  let dir = project;
  for (const name of chain) dir = packageDir(dir, name);
  const owner = `${chain.at(-1)} ${manifestAt(dir).version}`;
  dir = packageDir(dir, 'ws');
  const bufferUtilFile = path.join(dir, 'lib', 'buffer-util.js');
  return {
    owner,
    version: manifestAt(dir).version,
    corePath: fs.readFileSync(bufferUtilFile, 'utf8').includes('websocketMask'),
    bufferutil: createRequire(bufferUtilFile).resolve('bufferutil'),
  };
}

/**
 * Records the length of every call into `module`'s mask and unmask. The callers here look the functions up
 * on the module object at each call, so they see the wrappers; installed before the callers load anyway.
 */
function recordCalls(module) {
  const calls = { mask: [], unmask: [] };
  const { mask, unmask } = module;
  module.mask = function recordedMask(source, key, output, offset, length) {
    calls.mask.push(length);
    return mask.call(this, source, key, output, offset, length);
  };
  module.unmask = function recordedUnmask(buffer, key) {
    calls.unmask.push(buffer.length);
    return unmask.call(this, buffer, key);
  };
  return calls;
}

/** This package as the project's `bufferutil`, checked to be this package with its addon loaded. */
function loadBufferutil(project) {
  const userRequire = createRequire(path.join(project, 'index.js'));
  assert.equal(manifestAt(project, 'node_modules/bufferutil').name, rootManifest.name, 'node_modules/bufferutil is this package');
  const bufferUtil = userRequire('bufferutil');
  assert.ok(BACKENDS.includes(bufferUtil.backend), `unknown backend ${bufferUtil.backend}`);
  // The release's platform package for this machine is installed: the addon, not a fallback, must load.
  assert.ok(
    NATIVE_BACKENDS.includes(bufferUtil.backend),
    `bufferutil-simd loaded without its addon (backend ${bufferUtil.backend})`
  );
  return { userRequire, bufferUtil };
}

const listen = (server) => new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));

function assertCleanInstall(output) {
  const text = output.stdout + output.stderr;
  assert.doesNotMatch(text, /ERESOLVE|peer|conflict|invalid/i, text);
}

// ---------------------------------------------------------------------------------------------------
// WebSocket-Node

test('WebSocket-Node: npm dedupes its bufferutil ^4.0.1 dependency onto the alias', async () => {
  const project = projects.websocket;
  assertCleanInstall(installs.websocketBefore);
  assertCleanInstall(installs.websocket);
  const websocket = manifestAt(project, 'node_modules/websocket');
  assert.equal(websocket.version, WEBSOCKET_NODE);
  assert.match(websocket.dependencies.bufferutil, /^\^4\./, 'WebSocket-Node depends on bufferutil ^4');
  // Before the alias the real bufferutil was there: the alias replaced it, it did not land beside it.
  assert.equal(installs.websocketBeforeName, 'bufferutil');
  assert.equal(manifestAt(project, 'node_modules/bufferutil').name, rootManifest.name, 'node_modules/bufferutil is this package');
  assert.ok(
    !fs.existsSync(path.join(project, 'node_modules/websocket/node_modules/bufferutil')),
    'a nested real bufferutil under websocket'
  );
  const lock = JSON.parse(fs.readFileSync(path.join(project, 'package-lock.json'), 'utf8'));
  const lockedBufferutils = Object.entries(lock.packages).filter(([where]) => /(^|\/)node_modules\/bufferutil$/.test(where));
  assert.deepEqual(
    lockedBufferutils.map(([where, entry]) => [where, entry.name]),
    [['node_modules/bufferutil', rootManifest.name]],
    'the lockfile holds one bufferutil, this package'
  );
  // npm itself agrees the tree satisfies websocket's range (`npm ls` exits non-zero on an invalid edge).
  const { stdout } = await run('npm', ['ls', 'bufferutil', '--all', '--json'], { cwd: project });
  const tree = JSON.parse(stdout);
  assert.equal(tree.dependencies.websocket.dependencies.bufferutil.version, rootManifest.version);
  assert.doesNotMatch(stdout, /"(invalid|missing|problems)"/);
  // And the module WebSocket-Node requires is this package.
  const frameFile = path.join(project, 'node_modules/websocket/lib/WebSocketFrame.js');
  assert.equal(createRequire(frameFile).resolve('bufferutil'), path.join(project, 'node_modules/bufferutil/index.js'));
});

test('WebSocket-Node echoes text and binary messages of every size, each frame through bufferutil-simd', {
  timeout: TEST_TIMEOUT,
}, async (t) => {
  const project = projects.websocket;
  const { userRequire, bufferUtil } = loadBufferutil(project);
  const frameFile = path.join(project, 'node_modules/websocket/lib/WebSocketFrame.js');
  // The calls this test counts, as WebSocket-Node 1.0.35 makes them (no size threshold, no core path).
  const frameSource = fs.readFileSync(frameFile, 'utf8');
  assert.match(frameSource, /bufferUtil\.mask\(data, this\.maskBytes, output, outputPos, this\.length\)/);
  assert.match(frameSource, /bufferUtil\.unmask\(this\.binaryPayload, this\.maskBytes\)/);
  assert.equal(createRequire(frameFile).resolve('bufferutil'), userRequire.resolve('bufferutil'));
  const calls = recordCalls(bufferUtil);
  const { server: WebSocketServer, client: WebSocketClient } = userRequire('websocket');
  t.diagnostic(`Node ${process.version}, websocket ${WEBSOCKET_NODE}, bufferutil-simd backend ${bufferUtil.backend}`);

  // One frame per message (no fragmentation) so that each size is a frame-header case, and limits that
  // let 1 MiB + 3 through; no keep-alive pings to add frames.
  const options = { maxReceivedFrameSize: 4 * MiB, maxReceivedMessageSize: 4 * MiB, fragmentOutgoingMessages: false };
  const httpServer = http.createServer((request, response) => response.writeHead(404).end());
  await listen(httpServer);
  const server = new WebSocketServer({ httpServer, autoAcceptConnections: false, keepalive: false, ...options });
  server.on('request', (request) => {
    const connection = request.accept(null, request.origin);
    connection.on('message', (message) => {
      if (message.type === 'utf8') connection.sendUTF(message.utf8Data);
      else connection.sendBytes(message.binaryData);
    });
  });
  const client = new WebSocketClient(options);
  const connection = await new Promise((resolve, reject) => {
    client.once('connect', resolve).once('connectFailed', reject);
    client.connect(`ws://127.0.0.1:${httpServer.address().port}/`);
  });
  const nextReply = inbox((push) => connection.on('message', push));

  const expectedMasks = [];
  const expectedUnmasks = [];
  let masks;
  let unmasks;
  try {
    for (const size of SIZES) {
      for (const binary of [true, false]) {
        const sent = binary ? crypto.randomBytes(size) : randomText(size);
        assert.equal(Buffer.byteLength(sent), size);
        if (binary) connection.sendBytes(sent);
        else connection.sendUTF(sent);
        const reply = await nextReply();
        const what = `${binary ? 'binary' : 'text'} message of ${size} bytes`;
        assert.equal(reply.type, binary ? 'binary' : 'utf8', what);
        const received = binary ? reply.binaryData : Buffer.from(reply.utf8Data, 'utf8');
        assert.ok((binary ? sent : Buffer.from(sent, 'utf8')).equals(received), `${what}: bytes differ`);
        if (!binary) assert.equal(reply.utf8Data, sent, what);
        // The client masks every frame it sends, empty ones too; the server unmasks every non-empty one;
        // the server's echo is not masked (RFC 6455 §5.1), so the client unmasks nothing.
        expectedMasks.push(size);
        if (size > 0) expectedUnmasks.push(size);
      }
    }
    // Before the close handshake, which masks and unmasks a close frame too.
    masks = [...calls.mask];
    unmasks = [...calls.unmask];
  } finally {
    await new Promise((resolve) => {
      connection.once('close', resolve);
      connection.close();
    });
    server.shutDown();
    await new Promise((resolve) => httpServer.close(resolve));
  }

  t.diagnostic(`bufferutil-simd calls: mask ${masks.length}, unmask ${unmasks.length}`);
  assert.deepEqual(masks, expectedMasks, 'the client did not mask each frame, in order, with bufferutil-simd');
  assert.deepEqual(unmasks, expectedUnmasks, 'the server did not unmask each frame, in order, with bufferutil-simd');
});

// ---------------------------------------------------------------------------------------------------
// socket.io

/** A socket.io server and client from `project`, websocket transport only, echoing binary messages. */
async function socketIoEcho(t, project, { serverMustBypassCore }) {
  const { userRequire, bufferUtil } = loadBufferutil(project);
  const serverWs = wsAlong(project, ['socket.io', 'engine.io']);
  const clientWs = wsAlong(project, ['socket.io-client', 'engine.io-client']);
  const describe = (ws) => `${ws.owner} → ws ${ws.version}${ws.corePath ? ' (has the core path)' : ''}`;
  t.diagnostic(
    `Node ${process.version}${nodeHasWebsocketMask ? ' (has http.websocketMask)' : ''}; ` +
      `server: ${describe(serverWs)}; client: ${describe(clientWs)}; bufferutil-simd backend ${bufferUtil.backend}`
  );
  // Both ws copies require this package by name.
  assert.equal(serverWs.bufferutil, userRequire.resolve('bufferutil'), "the server's ws loads another bufferutil");
  assert.equal(clientWs.bufferutil, userRequire.resolve('bufferutil'), "the client's ws loads another bufferutil");
  // What the README says about socket.io rests on this: engine.io-client's ws never uses core.
  assert.equal(clientWs.corePath, false, `${describe(clientWs)}: the client masks with core on Node 26`);
  if (serverMustBypassCore)
    assert.equal(serverWs.corePath, false, `${describe(serverWs)}: the server unmasks with core on Node 26`);
  // Masks come only from the client (servers never mask), unmasks only from the server.
  const clientCallsPackage = !(clientWs.corePath && nodeHasWebsocketMask);
  const serverCallsPackage = !(serverWs.corePath && nodeHasWebsocketMask);

  const calls = recordCalls(bufferUtil);
  const { Server } = userRequire('socket.io');
  const { io } = userRequire('socket.io-client');
  const httpServer = http.createServer();
  const ioServer = new Server(httpServer, { transports: ['websocket'], maxHttpBufferSize: 4 * MiB });
  let serverTransport;
  ioServer.on('connection', (socket) => {
    serverTransport = socket.conn.transport.name;
    socket.on('echo', (data, ack) => ack(data));
  });
  await listen(httpServer);
  const socket = io(`http://127.0.0.1:${httpServer.address().port}`, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
  });
  let masks;
  let unmasks;
  try {
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('connect_error', reject));
    assert.equal(socket.io.engine.transport.name, 'websocket');
    assert.equal(serverTransport, 'websocket');
    for (const size of SOCKET_IO_SIZES) {
      const sent = crypto.randomBytes(size);
      const reply = await socket.timeout(20_000).emitWithAck('echo', sent);
      assert.ok(Buffer.isBuffer(reply), `reply to ${size} bytes is a ${Object.prototype.toString.call(reply)}`);
      assert.ok(sent.equals(reply), `binary message of ${size} bytes: bytes differ`);
    }
    masks = [...calls.mask];
    unmasks = [...calls.unmask];
  } finally {
    socket.disconnect();
    await new Promise((resolve) => ioServer.close(resolve));
  }

  t.diagnostic(`bufferutil-simd calls: mask ${masks.length}, unmask ${unmasks.length}`);
  // Each message is a short text frame (the packet) and a binary frame of exactly the payload.
  assertCalls(
    'client',
    'mask',
    masks,
    WS_MASK_FROM,
    clientCallsPackage,
    'the client is expected to mask with http.websocketMask'
  );
  assertCalls(
    'server',
    'unmask',
    unmasks,
    WS_UNMASK_FROM,
    serverCallsPackage,
    `the server's ws ${serverWs.version} is expected to unmask with http.websocketMask`
  );
}

/**
 * One side's calls into this package (their lengths): each binary frame from `from` bytes exactly once and
 * nothing shorter where that side's ws calls it; none at all where it uses Node's core instead.
 */
function assertCalls(side, operation, lengths, from, callsPackage, whyNone) {
  if (!callsPackage) {
    assert.equal(lengths.length, 0, whyNone);
    return;
  }
  assert.ok(lengths.length > 0, `the ${side} never called ${operation} of bufferutil-simd`);
  assert.ok(Math.min(...lengths) >= from, `ws called ${operation} of bufferutil-simd on a frame below ${from} B`);
  for (const size of SOCKET_IO_SIZES.filter((n) => n >= from)) {
    assert.equal(
      lengths.filter((n) => n === size).length,
      1,
      `the ${size}-byte binary frame did not go through ${operation} of bufferutil-simd once`
    );
  }
}

test('socket.io (current releases) over websocket: the client masks through bufferutil-simd', {
  timeout: TEST_TIMEOUT,
}, async (t) => {
  assertCleanInstall(installs.socketIo);
  await socketIoEcho(t, projects.socketIo, { serverMustBypassCore: false });
});

const pinnedTitle = `socket.io with engine.io ${ENGINE_IO_WITHOUT_CORE} (ws ~8.21): client masks and server unmasks through bufferutil-simd`;
test(pinnedTitle, { timeout: TEST_TIMEOUT }, async (t) => {
  assertCleanInstall(installs.socketIoPinned);
  const engineIo = manifestAt(projects.socketIoPinned, 'node_modules/engine.io');
  assert.equal(engineIo.version, ENGINE_IO_WITHOUT_CORE, 'the override did not take');
  await socketIoEcho(t, projects.socketIoPinned, { serverMustBypassCore: true });
});
