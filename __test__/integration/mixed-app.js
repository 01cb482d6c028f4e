'use strict';

// What the integration tests share: the release's tarballs served by a local registry while a test file runs, and the
// mixed app managers.js installs with each package manager: its dependencies, the app that echoes every payload
// through each of them, and the preload that records every call reaching this package.

const { before, after } = require('node:test');
const fs = require('node:fs');
const { rootManifest, packRelease, tempDir } = require('../../scripts/lib/packages');
const { startRegistry } = require('../../scripts/lib/registry');

/** The release packed into a folder `prefix…` and served by a local registry from the test file's `before` to its
 * `after`; `setup` gets `{ work, release, registry }` once it is served. */
function serveRelease(prefix, setup) {
  let [work, registry] = [];
  const serve = async () => {
    work = tempDir(prefix);
    const release = packRelease(work);
    registry = await startRegistry([release.main, ...Object.values(release.platforms)]);
    await setup({ work, release, registry });
  };
  before(serve, { timeout: 600_000 });
  after(async () => {
    await registry?.close();
    if (work && !process.env.KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
  });
}

// engine.io-client 6.6.8 (from socket.io-client 4.8.4) nests ws ~8.21, without the core path; engine.io 6.6.13 (from
// socket.io 4.8.4) takes ws ^8.23 and shares the hoisted ws; engine.io 6.6.12 nests ws ~8.21.
const DEPENDENCIES = {
  'socket.io': '4.8.4',
  'socket.io-client': '4.8.4',
  'engine.io-pinned': 'npm:engine.io@6.6.12',
  websocket: '1.0.35',
  ws: rootManifest.devDependencies.ws,
};
// 7-bit, 16-bit and 64-bit payload lengths, each side of every boundary and of ws's thresholds, and one large odd size.
const SIZES = { ws: [0, 1, 31, 32, 47, 48, 125, 126, 127, 65535, 65536, 1024 * 1024 + 3], socketIo: [1, 100, 65536] };
const [WS_MASK_FROM, WS_UNMASK_FROM] = [48, 32]; // ws 8 masks and unmasks in JavaScript below these

// Wraps the exports every `require('bufferutil')` in the project gets and, at exit, writes each call to $CALLS.
const PRELOAD = `
const [fs, path] = [require('node:fs'), require('node:path')];
// Under Yarn PnP there is no node_modules: the project's own dependency is the one every caller is given.
const lib = process.versions.pnp ? require('bufferutil') : require(path.resolve('node_modules/bufferutil'));
const calls = [];
function record(op, length, inPlace) {
  const prepare = Error.prepareStackTrace;
  Error.prepareStackTrace = (_, frames) => frames;
  const file = new Error().stack[2].getFileName(); // past record and the wrapper: the caller
  Error.prepareStackTrace = prepare;
  calls.push({ phase: globalThis.phase, file, op, length, inPlace });
}
const { mask, unmask } = lib;
lib.mask = function (source, key, output, offset, length) {
  record('mask', length, source === output);
  return mask.apply(this, arguments);
};
lib.unmask = function (buffer, key) {
  record('unmask', buffer.length);
  return unmask.apply(this, arguments);
};
// Each file's package (the nearest package.json with a name and a version, read in a Yarn PnP zip too), as name@version.
function packageOf(file) {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      const { name, version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      if (name && version) return name + '@' + version;
    } catch {}
  }
  return null;
}
process.on('exit', () => {
  for (const call of calls) call.package = packageOf(call.file);
  fs.writeFileSync(process.env.CALLS, JSON.stringify(calls));
});
`;

// Echoes through ws (text and binary), socket.io over the websocket transport on both servers, and WebSocket-Node
// (binary), each a phase of its own (globalThis.phase, which the preload records); fails on a byte that differs.
const APP = `
const [crypto, http] = [require('node:crypto'), require('node:http')];
const { WebSocket, WebSocketServer } = require('ws');
const { Server } = require('socket.io');
const { io } = require('socket.io-client');
const engineIoPinned = require('engine.io-pinned');
const { server: WebSocketNodeServer, client: WebSocketNodeClient } = require('websocket');
const SIZES = ${JSON.stringify(SIZES)};
const LIMIT = 4 << 20;

const listening = (server = http.createServer()) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve([server, '127.0.0.1:' + server.address().port])));
const message = (size, binary) => (binary ? crypto.randomBytes(size) : crypto.randomBytes(size).toString('base64').slice(0, size));
function check(sent, received, what) {
  if (!Buffer.from(sent).equals(Buffer.from(received))) throw new Error(what + ' of ' + Buffer.byteLength(sent) + ' bytes: bytes differ');
}

async function ws() {
  globalThis.phase = 'ws';
  const [httpServer, host] = await listening();
  const server = new WebSocketServer({ server: httpServer });
  server.on('connection', (socket) => socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary })));
  const client = new WebSocket('ws://' + host);
  await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject));
  for (const size of SIZES.ws) {
    for (const binary of [true, false]) {
      const sent = message(size, binary);
      client.send(sent, { binary });
      const [data, isBinary] = await new Promise((resolve) => client.once('message', (...reply) => resolve(reply)));
      check(sent, data, isBinary === binary ? 'ws' : 'ws: a binary flag that differs');
    }
  }
  client.terminate();
}

async function socketIo(pinned) {
  globalThis.phase = pinned ? 'socket.io pinned' : 'socket.io';
  const [httpServer, host] = await listening();
  const options = { transports: ['websocket'], maxHttpBufferSize: LIMIT };
  const server = pinned
    ? new Server(options).bind(engineIoPinned.attach(httpServer, { ...options, path: '/socket.io/' }))
    : new Server(httpServer, options);
  server.on('connection', (socket) => socket.on('echo', (data, ack) => ack(data)));
  const socket = io('http://' + host, { transports: ['websocket'], reconnection: false, forceNew: true });
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('connect_error', reject));
  for (const size of SIZES.socketIo) {
    const sent = message(size, true);
    check(sent, await socket.timeout(20000).emitWithAck('echo', sent), 'socket.io');
  }
  socket.disconnect();
}

async function websocketNode() {
  globalThis.phase = 'WebSocket-Node';
  const [httpServer, host] = await listening();
  // One frame per message, so that each message is one mask and one unmask; no keep-alive pings.
  const options = { maxReceivedFrameSize: LIMIT, maxReceivedMessageSize: LIMIT, fragmentOutgoingMessages: false };
  const server = new WebSocketNodeServer({ httpServer, autoAcceptConnections: false, keepalive: false, ...options });
  server.on('request', (request) =>
    request.accept(null, request.origin).on('message', function (reply) { this.sendBytes(reply.binaryData); }));
  const client = new WebSocketNodeClient(options);
  const connection = await new Promise((resolve, reject) =>
    client.once('connect', resolve).once('connectFailed', reject).connect('ws://' + host + '/'));
  for (const size of SIZES.ws) {
    const sent = message(size, true);
    connection.sendBytes(sent);
    check(sent, (await new Promise((resolve) => connection.once('message', resolve))).binaryData, 'WebSocket-Node');
  }
}

ws().then(() => socketIo(false)).then(() => socketIo(true)).then(websocketNode)
  .then(() => process.exit(0), (error) => { console.error(error); process.exit(1); });
`;

module.exports = { serveRelease, DEPENDENCIES, SIZES, WS_MASK_FROM, WS_UNMASK_FROM, PRELOAD, APP };
