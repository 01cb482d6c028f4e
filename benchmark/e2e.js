'use strict';

// `npm run bench:e2e`: a server and a client in one process on 127.0.0.1, echoing binary messages with 8
// in flight, per consumer of `bufferutil` (a view) and message size, once per implementation of the
// masking, each in a child process of its own:
//
//   ws              ws 8.23 (this repo's devDependency) at 64 KiB, 1 MiB, 125 B: bufferutil 4.1.0,
//                   bufferutil-simd, ws's own JS loop (WS_NO_BUFFER_UTIL=1), and where Node has
//                   http.websocketMask (26+) core, which ws ≥ 8.22.1 then prefers: the other cases hide it
//                   there, so ws falls back to bufferutil or its loop as it does on older Node.
//   websocket-node  WebSocket-Node 1.0.35 (npm `websocket`) at 125 B, 16 KiB, 1 MiB: bufferutil 4.1.0 and
//                   bufferutil-simd. It requires bufferutil for every frame and has no core path: no core case.
//   socket.io       socket.io + socket.io-client 4.8.4, websocket transport, same sizes and cases. The
//                   client's ws (engine.io-client pins ~8.21) has no core path: no core case. The server's ws
//                   (engine.io 6.6.13: ^8.23) unmasks with core on Node 26 in both cases, as users get it.
//
//   undici          undici's WebSocket client (8.13.1; 7.30.2 on Node 20, which 8.x does not load on) as in
//                   its own benchmark: send one binary message, await the echo, at 125 B, 16 KiB, 256 KiB,
//                   1 MiB. Cases: undici as published (its byte loops), undici with both loops routed through
//                   bufferutil-simd from 64 B (a copy patched by scripts/lib/masking-patches.js, as undici
//                   PR #3273 did; its Array key as is), and as references ws's client with its JS loop and
//                   ws with its JS loops at both ends (WS_NO_BUFFER_UTIL=1). The server is ws unmasking
//                   through bufferutil-simd (core hidden on Node 26) in all but the last case, so what
//                   differs is the client's masking. Ratios are to published undici and to both ws cases.
//
//   node benchmark/e2e.js [--quick] [--cpu-prof] [--views=ws,websocket-node,socket.io,undici] [--rounds=N] [--seconds=S]
//     --quick, BENCH_QUICK=1       ~0.3 s per case instead of 3 s (CI: proves the wiring, not speed)
//     --rounds=N                   every case N times per size, in an order that rotates each round; the
//                                  tables then give medians over rounds and the median, lowest and highest
//                                  of the per-round ratios to bufferutil (default 1: one 3 s process per
//                                  case is mostly noise on a shared machine; claims need rounds)
//     --seconds=S                  timed seconds per case (default 3)
//     --sizes=125,16384            only these of each view's message sizes, in bytes
//     --cpu-prof, E2E_CPU_PROF=1   a V8 CPU profile per case in benchmark/results/*.cpuprofile
//     --views=…                    only these views (ws, websocket-node, socket.io, undici)
//
// How bufferutil-simd replaces bufferutil: the consumers call `require('bufferutil')` by name, and this
// repo's own node_modules/bufferutil always wins that lookup (NODE_PATH is only tried after node_modules
// fails, so a NODE_PATH shim dir could never take over). So each child hooks Module._resolveFilename before
// loading the consumer: the name 'bufferutil' resolves to lib/counting-bufferutil.js, which forwards to the
// implementation under test (an absolute path) and counts calls. Each ws copy's own buffer-util exports are
// wrapped before its sender and receiver take them, so the counts also show how many frames ws masked and
// unmasked at all; WebSocket-Node hands every frame over, so its count follows from the message size.
//
// Client-to-server frames are masked by the client and unmasked by the server; server-to-client frames
// are not masked (RFC 6455 §5.1).
//
// WebSocket-Node and socket.io are not devDependencies: they are installed on first use, pinned, with
// --ignore-scripts, into a cache folder outside the repo (~/.cache/bufferutil-simd/e2e-consumers/,
// BUFFERUTIL_SIMD_E2E_CONSUMERS moves it) and reused from there. They bring ~40 packages (es5-ext and its
// postinstall among them, utf-8-validate, a second ws) that nothing else here needs, and every contributor
// and CI job would install them with the repo; where they live does not matter to the benchmark, since
// `bufferutil` is resolved by the hook above. The folder is named after the pins, so changing one
// installs afresh; the versions that resolved are printed with the results. undici goes into its own
// folder beside it (e2e-undici/undici-<pin>/); each run copies it to a temporary folder and patches the copy.

const { execFileSync, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const RESULTS = path.join(__dirname, 'results');
const KiB = 1024;
const MiB = 1024 * KiB;
const WINDOW = 8;
// ws hands frames to bufferutil from these sizes up (below them it masks in JavaScript).
const WS_MASK_FROM = 48;
const WS_UNMASK_FROM = 32;
// WebSocket-Node's default: a message over 16 KiB goes as 16 KiB fragments, each its own masked frame.
const WEBSOCKET_NODE_FRAGMENT = 16 * KiB;

const flag = (name, variable) => process.argv.includes(`--${name}`) || /^(1|true|yes)$/i.test(process.env[variable] || '');
const QUICK = flag('quick', 'BENCH_QUICK');
const CPU_PROF = flag('cpu-prof', 'E2E_CPU_PROF');
const option = (name) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const VIEW_FILTER = option('views')?.split(',');
const SIZE_FILTER = option('sizes')?.split(',').map(Number);
const ROUNDS = QUICK ? 1 : positive(option('rounds') ?? 1, 'rounds');

const { MASKER_FROM, undiciPin, patchUndici } = require('../scripts/lib/masking-patches');

const CONSUMER_PINS = { websocket: '1.0.35', 'socket.io': '4.8.4', 'socket.io-client': '4.8.4' };
const CONSUMERS =
  process.env.BUFFERUTIL_SIMD_E2E_CONSUMERS ??
  path.join(
    process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'),
    'bufferutil-simd',
    'e2e-consumers',
    Object.entries(CONSUMER_PINS)
      .map(([name, version]) => `${name}-${version}`)
      .join('_')
  );

const UNDICI = undiciPin();
const UNDICI_CACHE =
  process.env.BUFFERUTIL_SIMD_E2E_UNDICI ??
  path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'bufferutil-simd', 'e2e-undici', `undici-${UNDICI}`);
// Set by the parent: the published undici and this run's patched copy.
const UNDICI_DIRS = {};

// Wall-clock budget and a count cap per message size: whichever comes first ends the case.
const CAPS = { 125: 2_000_000, [16 * KiB]: 500_000, [64 * KiB]: 200_000, [256 * KiB]: 100_000, [MiB]: 20_000 };
const SECONDS = QUICK ? 0.3 : positive(option('seconds') ?? 3, 'seconds');
const WARMUP_SECONDS = QUICK ? 0.05 : 0.3;

function positive(text, name) {
  const value = Number(text);
  if (!(value > 0) || (name === 'rounds' && !Number.isInteger(value))) {
    console.error(`--${name} must be a positive ${name === 'rounds' ? 'integer' : 'number'}; got ${text}`);
    process.exit(2);
  }
  return value;
}

const BUFFERUTIL = { id: 'bufferutil', label: 'bufferutil 4.1.0', target: require.resolve('bufferutil') };
const SIMD = { id: 'bufferutil-simd', label: 'bufferutil-simd', target: require.resolve(ROOT) };
const UNDICI_SERVER = { target: SIMD.target, hideCore: true };
const VIEWS = [
  {
    id: 'ws',
    title: `ws ${require('ws/package.json').version}`,
    sizes: [64 * KiB, MiB, 125],
    cases: (coreMask) => [
      { ...BUFFERUTIL, hideCore: true },
      { ...SIMD, hideCore: true },
      { id: 'ws-js', label: 'WS_NO_BUFFER_UTIL=1 (ws JS loop)', env: { WS_NO_BUFFER_UTIL: '1' }, hideCore: true },
      ...(coreMask ? [{ id: 'node-core', label: `node ${process.version} http.websocketMask`, hideCore: false }] : []),
    ],
  },
  {
    id: 'websocket-node',
    title: `WebSocket-Node ${CONSUMER_PINS.websocket}`,
    sizes: [125, 16 * KiB, MiB],
    cases: () => [BUFFERUTIL, SIMD],
  },
  {
    id: 'socket.io',
    title: `socket.io ${CONSUMER_PINS['socket.io']}`,
    sizes: [125, 16 * KiB, MiB],
    cases: () => [BUFFERUTIL, SIMD],
  },
  {
    id: 'undici',
    title: `undici ${UNDICI}`,
    // --quick proves the wiring: two sizes keep its share to a few seconds.
    sizes: QUICK ? [125, 256 * KiB] : [125, 16 * KiB, 256 * KiB, MiB],
    window: 1,
    baselines: [
      { id: 'undici', short: 'published undici' },
      { id: 'ws-js', short: 'ws JS loop' },
      { id: 'ws-js-both', short: 'ws JS loops both ends' },
    ],
    cases: () => [
      {
        ...UNDICI_SERVER,
        id: 'undici',
        label: `undici ${UNDICI} as published (byte loops)`,
        client: 'undici',
        undiciDir: UNDICI_DIRS.published,
      },
      {
        ...UNDICI_SERVER,
        id: 'undici-simd',
        label: `undici ${UNDICI} + bufferutil-simd from ${MASKER_FROM} B`,
        client: 'undici',
        undiciDir: UNDICI_DIRS.patched,
      },
      { ...UNDICI_SERVER, id: 'ws-js', label: `ws ${require('ws/package.json').version} client, its JS loop`, client: 'ws-js' },
      // As e2e.js's ws view runs it: WS_NO_BUFFER_UTIL=1 for the process, so the server unmasks in JS too.
      {
        id: 'ws-js-both',
        label: `ws ${require('ws/package.json').version} client and server, JS loops (WS_NO_BUFFER_UTIL=1)`,
        env: { WS_NO_BUFFER_UTIL: '1' },
        hideCore: true,
        client: 'ws-js-both',
      },
    ],
  },
]
  .filter((view) => !VIEW_FILTER || VIEW_FILTER.includes(view.id))
  .map((view) => ({ ...view, sizes: view.sizes.filter((size) => !SIZE_FILTER || SIZE_FILTER.includes(size)) }))
  .filter((view) => view.sizes.length > 0);

// ---------------------------------------------------------------------------------------------------
// Where things are: the consumers' cache, and each ws copy a consumer loads.

/** The folder holding the pinned consumers (or `specs` in `folder`), installed into the cache first if missing. */
function ensureConsumers(
  folder = CONSUMERS,
  specs = Object.entries(CONSUMER_PINS).map(([name, version]) => `${name}@${version}`)
) {
  if (fs.existsSync(path.join(folder, 'node_modules', '.package-lock.json'))) return folder;
  process.stderr.write(`installing ${specs.join(' ')} (--ignore-scripts) into ${folder}\n`);
  // Installed beside the final folder and renamed into place, so that an interrupted install never leaves
  // a half-filled folder behind.
  fs.mkdirSync(path.dirname(folder), { recursive: true });
  const staging = fs.mkdtempSync(`${folder}.staging-`);
  try {
    fs.writeFileSync(path.join(staging, 'package.json'), JSON.stringify({ name: 'e2e-consumers', private: true }, null, 2));
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--no-update-notifier', '--ignore-scripts', '--save-exact', ...specs],
      {
        cwd: staging,
        stdio: ['ignore', 'ignore', 'inherit'],
      }
    );
    fs.renameSync(staging, folder);
  } catch (error) {
    if (!fs.existsSync(path.join(folder, 'node_modules', '.package-lock.json'))) throw error;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return folder;
}

/**
 * undici as published (from the cache, installed first if missing) and a copy of it in a temporary folder
 * with its masking loops routed through `bufferutil-simd` (which each child resolves to the counting shim);
 * sets UNDICI_DIRS. Returns a function that removes the copy.
 */
function prepareUndici() {
  const published = path.join(ensureConsumers(UNDICI_CACHE, [`undici@${UNDICI}`]), 'node_modules', 'undici');
  if (versionOf(published) !== UNDICI) throw new Error(`${published} is undici ${versionOf(published)}, not ${UNDICI}`);
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-e2e-undici-'));
  const patched = path.join(temp, 'node_modules', 'undici');
  fs.cpSync(published, patched, { recursive: true });
  patchUndici(patched);
  Object.assign(UNDICI_DIRS, { published, patched });
  return () => fs.rmSync(temp, { recursive: true, force: true });
}

/** The folder of package `name` as `require` finds it from `fromDir` (not every package exports package.json). */
function packageDir(fromDir, name) {
  const entry = Module.createRequire(path.join(fromDir, 'package.json')).resolve(name);
  const marker = `${path.sep}node_modules${path.sep}${name}${path.sep}`;
  return entry.slice(0, entry.lastIndexOf(marker) + marker.length - 1);
}

const versionOf = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;

/**
 * The ws that `chain` (package names, each required by the one before, from `from`) ends at: who requires
 * it, its folder and version, and whether its buffer-util has the http.websocketMask path (ws ≥ 8.22.1).
 */
function wsAlong(from, chain) {
  let dir = from;
  for (const name of chain) dir = packageDir(dir, name);
  const owner = chain.length ? `${chain.at(-1)} ${versionOf(dir)}` : 'this repo';
  dir = packageDir(dir, 'ws');
  const source = fs.readFileSync(path.join(dir, 'lib', 'buffer-util.js'), 'utf8');
  return { owner, dir, version: versionOf(dir), corePath: source.includes('websocketMask') };
}

// ---------------------------------------------------------------------------------------------------
// Child: one view, one implementation, one message size.

/**
 * Wraps the exports of ws's lib/buffer-util.js in `wsDir` before its sender and receiver destructure them:
 * counts every frame ws masks and unmasks, and those at or above its bufferutil thresholds.
 */
function countWsCalls(wsDir) {
  const bufferUtil = require(path.join(wsDir, 'lib', 'buffer-util.js'));
  const counts = { mask: 0, unmask: 0, maskFromThreshold: 0, unmaskFromThreshold: 0 };
  const usesOwnLoop = bufferUtil.mask.name === '_mask';
  const { mask, unmask } = bufferUtil;
  bufferUtil.mask = (source, key, output, offset, length) => {
    counts.mask++;
    if (length >= WS_MASK_FROM) counts.maskFromThreshold++;
    mask(source, key, output, offset, length);
  };
  bufferUtil.unmask = (buffer, key) => {
    counts.unmask++;
    if (buffer.length >= WS_UNMASK_FROM) counts.unmaskFromThreshold++;
    unmask(buffer, key);
  };
  return { counts, usesOwnLoop };
}

/** What a ws copy uses, in this child: its own loop, Node core, or the counting shim's target. */
function wsDispatch(ws, { coreActive, shim, usesOwnLoop }) {
  if (usesOwnLoop) return 'ws-js';
  if (ws.corePath && coreActive) return 'node-core';
  return shimDispatch(shim);
}

/** `bufferutil → <the implementation under test> (<its backend>)`, or 'unknown' if the shim never loaded. */
function shimDispatch(shim) {
  const loaded = require.cache[shim]?.exports;
  if (!loaded) return 'unknown';
  return `bufferutil → ${path.relative(ROOT, loaded.target) || '.'}${loaded.backend ? ` (${loaded.backend})` : ''}`;
}

const listen = (server) => new Promise((done, fail) => server.once('error', fail).listen(0, '127.0.0.1', done));

/**
 * Each view's server and client. `open` resolves to `{ send(payload), onReply(handler), close(), describe() }`;
 * the server checks every 16th message it gets against `payload` byte for byte (`check`), and `describe()`
 * reports what the consumer used and the ws-level call counts the wiring check compares with.
 */
/** A ws server on 127.0.0.1 sending each binary message back, `check` seeing it first; resolves when it listens. */
async function echoServer(WebSocketServer, check) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise((done) => server.once('listening', done));
  server.on('connection', (socket) => {
    socket.on('message', (data, isBinary) => {
      check(isBinary && data);
      socket.send(data, { binary: true });
    });
  });
  return server;
}

const ENDPOINTS = {
  async ws({ check, coreActive, shim }) {
    const ws = wsAlong(ROOT, []);
    const { counts, usesOwnLoop } = countWsCalls(ws.dir);
    const { WebSocket, WebSocketServer } = require('ws');
    const server = await echoServer(WebSocketServer, check);
    const client = new WebSocket(`ws://127.0.0.1:${server.address().port}`, { perMessageDeflate: false });
    await new Promise((done, fail) => client.once('open', done).once('error', fail));
    return {
      send: (data) => client.send(data, { binary: true }),
      onReply: (handler) => client.on('message', handler),
      close() {
        client.close();
        server.close();
      },
      describe: () => {
        const dispatch = wsDispatch(ws, { coreActive, shim, usesOwnLoop });
        return { dispatch, ws: [{ side: 'both', ...ws, dispatch, counts: { ...counts } }] };
      },
    };
  },

  async 'websocket-node'({ consumers, check, shim }) {
    const { server: WebSocketServer, client: WebSocketClient } = Module.createRequire(path.join(consumers, 'package.json'))(
      'websocket'
    );
    const httpServer = require('node:http').createServer();
    await listen(httpServer);
    // WebSocket-Node's defaults (16 KiB fragments), but no keep-alive pings, and the server takes a
    // message of exactly 1 MiB without relying on its limit being inclusive.
    const server = new WebSocketServer({
      httpServer,
      autoAcceptConnections: false,
      keepalive: false,
      maxReceivedMessageSize: 2 * MiB,
    });
    server.on('request', (request) => {
      const connection = request.accept(null, request.origin);
      connection.on('message', (message) => {
        check(message.type === 'binary' && message.binaryData);
        connection.sendBytes(message.binaryData);
      });
    });
    const client = new WebSocketClient();
    const connection = await new Promise((done, fail) => {
      client.once('connect', done).once('connectFailed', fail);
      client.connect(`ws://127.0.0.1:${httpServer.address().port}/`);
    });
    return {
      send: (data) => connection.sendBytes(data),
      onReply: (handler) => connection.on('message', (message) => handler(message.binaryData)),
      close() {
        connection.drop();
        server.shutDown();
        httpServer.close();
      },
      describe: () => ({ dispatch: shimDispatch(shim), ws: [] }),
    };
  },

  async 'socket.io'({ consumers, check, coreActive, shim }) {
    const serverWs = wsAlong(consumers, ['socket.io', 'engine.io']);
    const clientWs = wsAlong(consumers, ['socket.io-client', 'engine.io-client']);
    const serverCounts = countWsCalls(serverWs.dir);
    const clientCounts = serverWs.dir === clientWs.dir ? serverCounts : countWsCalls(clientWs.dir);
    const consumerRequire = Module.createRequire(path.join(consumers, 'package.json'));
    const { Server } = consumerRequire('socket.io');
    const { io } = consumerRequire('socket.io-client');
    const httpServer = require('node:http').createServer();
    // socket.io's default limit (1 MB) would refuse a 1 MiB message.
    const ioServer = new Server(httpServer, { transports: ['websocket'], maxHttpBufferSize: 2 * MiB, serveClient: false });
    ioServer.on('connection', (socket) => {
      socket.on('echo', (data) => {
        check(Buffer.isBuffer(data) && data);
        socket.emit('echo', data);
      });
    });
    await listen(httpServer);
    const socket = io(`http://127.0.0.1:${httpServer.address().port}`, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
    });
    await new Promise((done, fail) => socket.once('connect', done).once('connect_error', fail));
    if (socket.io.engine.transport.name !== 'websocket')
      throw new Error(`socket.io transport ${socket.io.engine.transport.name}`);
    return {
      send: (data) => socket.emit('echo', data),
      onReply: (handler) => socket.on('echo', handler),
      close() {
        socket.disconnect();
        ioServer.close();
      },
      describe: () => {
        const client = wsDispatch(clientWs, { coreActive, shim, usesOwnLoop: clientCounts.usesOwnLoop });
        const server = wsDispatch(serverWs, { coreActive, shim, usesOwnLoop: serverCounts.usesOwnLoop });
        const copy = (ws, side, dispatch, counts) => ({ side, ...ws, dispatch, counts: { ...counts } });
        return {
          dispatch: client === server ? client : `client ${client}, server ${server}`,
          // One ws for both ends would be one set of counts: listed once, so that the sums stay exact.
          ws:
            serverCounts === clientCounts
              ? [copy(serverWs, 'both', server, serverCounts.counts)]
              : [copy(clientWs, 'client', client, clientCounts.counts), copy(serverWs, 'server', server, serverCounts.counts)],
        };
      },
    };
  },

  async undici({ check, shim, client, undiciDir }) {
    const ws = wsAlong(ROOT, []);
    // The reference: ws's client with its own JS loop, while the server in this process still unmasks
    // through the counting shim (WS_NO_BUFFER_UTIL, the 'ws-js-both' case, turns both ends to JavaScript).
    if (client === 'ws-js') useWsOwnMask(ws.dir);
    const wsClient = client === 'ws-js' || client === 'ws-js-both';
    const { counts, usesOwnLoop } = countWsCalls(ws.dir);
    const { WebSocket: WsClient, WebSocketServer } = require('ws');
    const server = await echoServer(WebSocketServer, check);
    const url = `ws://127.0.0.1:${server.address().port}`;
    let endpoint;
    if (wsClient) {
      const socket = new WsClient(url, { perMessageDeflate: false });
      await new Promise((done, fail) => socket.once('open', done).once('error', fail));
      endpoint = {
        send: (data) => socket.send(data, { binary: true }),
        onReply: (handler) => socket.on('message', handler),
        close: () => socket.close(),
      };
    } else {
      const undici = require(undiciDir);
      const socket = new undici.WebSocket(url);
      socket.binaryType = 'arraybuffer';
      await new Promise((done, fail) => {
        socket.addEventListener('open', done, { once: true });
        socket.addEventListener('error', (event) => fail(event.error ?? new Error('undici WebSocket error')), { once: true });
      });
      endpoint = {
        // A Buffer is a view: undici's createFrame masks it into the frame buffer (the patched copy: one
        // mask call at offset 6, 8 or 14).
        send: (data) => socket.send(data),
        onReply: (handler) => socket.addEventListener('message', ({ data }) => handler(Buffer.from(data))),
        close: () => socket.close(),
      };
    }
    const frameFile = wsClient ? null : path.join(undiciDir, 'lib', 'web', 'websocket', 'frame.js');
    const patched = frameFile !== null && fs.readFileSync(frameFile, 'utf8').includes('masker.mask(');
    return {
      ...endpoint,
      close() {
        endpoint.close();
        server.close();
      },
      describe: () => {
        const serverDispatch = wsDispatch(ws, { coreActive: false, shim, usesOwnLoop: client === 'ws-js-both' && usesOwnLoop });
        const clientDispatch = wsClient
          ? usesOwnLoop
            ? 'ws-js'
            : 'ws (not its loop)'
          : patched
            ? `undici → ${shimDispatch(shim).replace(/^bufferutil/, 'bufferutil-simd')}`
            : 'undici loops';
        return {
          dispatch: `client ${clientDispatch}, server ${serverDispatch}`,
          clientDispatch,
          patched,
          ws: [{ side: wsClient ? 'both' : 'server', ...ws, dispatch: serverDispatch, counts: { ...counts } }],
        };
      },
    };
  },
};

/**
 * Makes ws's own JS loop the `mask` of its lib/buffer-util.js in `wsDir` (before its sender loads), keeping
 * its `unmask` (bufferutil here): a second instance of the file, loaded with WS_NO_BUFFER_UTIL=1, lends it.
 */
function useWsOwnMask(wsDir) {
  const file = path.join(wsDir, 'lib', 'buffer-util.js');
  const loaded = require(file);
  const kept = require.cache[file];
  delete require.cache[file];
  process.env.WS_NO_BUFFER_UTIL = '1';
  let own;
  try {
    own = require(file);
  } finally {
    delete process.env.WS_NO_BUFFER_UTIL;
    require.cache[file] = kept;
  }
  if (own.mask.name !== '_mask') throw new Error(`ws ${wsDir}: WS_NO_BUFFER_UTIL=1 did not give its own loop (${own.mask.name})`);
  loaded.mask = own.mask;
}

async function child() {
  const { view, size, maxMessages, seconds, warmupSeconds, hideCore, consumers, window, client, undiciDir } = JSON.parse(
    process.env.E2E_CHILD
  );
  const http = require('node:http');
  const nodeCore = typeof http.websocketMask === 'function';
  if (hideCore && nodeCore) Object.assign(http, { websocketMask: undefined, websocketUnmask: undefined });
  const coreActive = nodeCore && !hideCore;

  let bufferutilRequests = 0;
  let maskerRequests = 0;
  const shim = path.join(__dirname, 'lib', 'counting-bufferutil.js');
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (request === 'bufferutil') {
      bufferutilRequests++;
      if (process.env.E2E_BUFFERUTIL_TARGET) return shim;
    }
    // The patched undici's optional `require('bufferutil-simd')`: the same counting shim (the client only
    // masks and the server only unmasks, so the counts stay apart).
    if (request === 'bufferutil-simd' && view === 'undici' && process.env.E2E_BUFFERUTIL_TARGET) {
      maskerRequests++;
      return shim;
    }
    return resolve.call(this, request, ...rest);
  };

  const payload = crypto.randomBytes(size);
  let serverMessages = 0;
  let corrupt = 0;
  // The server sees the client's masked frames unmasked: check one message in 16 byte for byte.
  const check = (data) => {
    if ((serverMessages++ & 15) === 0 && !data?.equals(payload)) corrupt++;
  };
  const endpoint = await ENDPOINTS[view]({ payload, check, coreActive, shim, consumers, client, undiciDir });
  let handler = null;
  endpoint.onReply((data) => handler(data));

  // Sends until `until` ms (monotonic) or `count` messages, keeping `window` echoes outstanding.
  const exchange = (until, count) =>
    new Promise((done) => {
      let sent = 0;
      let received = 0;
      const send = () => {
        sent++;
        endpoint.send(payload);
      };
      handler = (data) => {
        received++;
        if (data?.length !== size) corrupt++;
        if (sent < count && performance.now() < until) send();
        else if (received === sent) done(received);
      };
      for (let i = 0; i < Math.min(window, count); i++) send();
    });

  await exchange(performance.now() + warmupSeconds * 1e3, maxMessages);
  const loaded = require.cache[shim]?.exports;
  const countsBefore = { ...(loaded?.counts ?? {}) };
  const wsBefore = endpoint.describe().ws;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const messages = await exchange(started + seconds * 1e3, maxMessages);
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const counts = loaded ? Object.fromEntries(Object.entries(loaded.counts).map(([k, v]) => [k, v - countsBefore[k]])) : null;
  const { dispatch, ws, clientDispatch, patched } = endpoint.describe();
  for (const [i, copy] of ws.entries()) {
    copy.counts = Object.fromEntries(Object.entries(copy.counts).map(([k, v]) => [k, v - wsBefore[i].counts[k]]));
  }
  endpoint.close();

  const bytes = messages * size;
  process.stdout.write(
    `${JSON.stringify({
      view,
      size,
      messages,
      elapsedMs,
      corrupt,
      messagesPerSecond: messages / (elapsedMs / 1e3),
      // An echo carries the same bytes both ways: masked client→server, unmasked server→client.
      mbpsEachWay: bytes / elapsedMs / 1e3,
      cpuMicrosPerMessage: (cpu.user + cpu.system) / messages,
      cpuUserMicros: cpu.user,
      cpuSystemMicros: cpu.system,
      dispatch,
      nodeCore,
      hideCore,
      bufferutilRequests,
      maskerRequests,
      clientDispatch,
      patched,
      backend: loaded?.backend,
      implementationCalls: counts,
      ws,
    })}\n`,
    // Whatever the consumer leaves open (timers, sockets closing) must not hold the result back.
    () => process.exit(0)
  );
}

// ---------------------------------------------------------------------------------------------------
// Parent: every view, size and case; cases interleaved per (view, size) so slow drifts hit them alike.

function runCase(view, testCase, size, consumers) {
  const args = [];
  if (CPU_PROF) {
    args.push('--cpu-prof', `--cpu-prof-dir=${RESULTS}`, `--cpu-prof-name=e2e-${view.id}-${testCase.id}-${size}.cpuprofile`);
  }
  const env = { ...process.env, ...testCase.env, E2E_BUFFERUTIL_TARGET: testCase.target ?? '' };
  delete env.BUFFERUTIL_SIMD_LEVEL;
  if (!testCase.env?.WS_NO_BUFFER_UTIL) delete env.WS_NO_BUFFER_UTIL;
  env.E2E_CHILD = JSON.stringify({
    view: view.id,
    size,
    maxMessages: CAPS[size],
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    hideCore: Boolean(testCase.hideCore),
    consumers,
    window: view.window ?? WINDOW,
    client: testCase.client,
    undiciDir: testCase.undiciDir,
  });
  const result = spawnSync(process.execPath, [...args, __filename], { env, encoding: 'utf8', timeout: (SECONDS + 30) * 1e3 });
  if (result.status !== 0) {
    throw new Error(`${view.id} ${testCase.id} ${size} B: child failed (${result.status ?? result.signal})\n${result.stderr}`);
  }
  return JSON.parse(result.stdout.trim().split('\n').pop());
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function formatSize(bytes) {
  return bytes >= MiB ? `${bytes / MiB} MiB` : bytes >= KiB ? `${bytes / KiB} KiB` : `${bytes} B`;
}

/** Whether the consumer used what the case meant to test; explains any mismatch. */
function wiringProblem(view, testCase, r) {
  if (r.corrupt > 0) return `${r.corrupt} corrupt messages`;
  if (view.id === 'undici') return undiciWiringProblem(testCase, r);
  if (!testCase.target) {
    // No implementation under test: ws's own loop, or Node core.
    if (r.bufferutilRequests !== 0) return `required bufferutil (${r.dispatch})`;
    const expected = testCase.id === 'node-core' ? 'node-core' : 'ws-js';
    return r.dispatch === expected ? null : `expected ${expected}, got ${r.dispatch}`;
  }
  if (r.bufferutilRequests === 0 || !r.implementationCalls) return 'bufferutil was never required';
  const { mask, unmask } = r.implementationCalls;
  if (view.id === 'websocket-node') {
    // Every frame, both ways of the mask: the client masks each fragment, the server unmasks each.
    const frames = r.messages * Math.max(1, Math.ceil(r.size / WEBSOCKET_NODE_FRAGMENT));
    if (mask !== frames) return `mask reached the implementation ${mask} times for ${frames} frames`;
    if (unmask !== frames) return `unmask reached the implementation ${unmask} times for ${frames} frames`;
    return null;
  }
  // ws: each copy must use the implementation under test unless it has the core path and core is on;
  // then every frame at or above ws's thresholds from the copies that use it reaches the implementation,
  // and nothing else. Only clients mask and only servers unmask, so the sums are exact.
  const expectedDispatch = `bufferutil → ${path.relative(ROOT, testCase.target) || '.'}${r.backend ? ` (${r.backend})` : ''}`;
  const viaPackage = [];
  for (const copy of r.ws) {
    const expected = copy.corePath && r.nodeCore && !r.hideCore ? 'node-core' : expectedDispatch;
    if (copy.dispatch !== expected) return `${copy.side} ws ${copy.version}: expected ${expected}, got ${copy.dispatch}`;
    if (expected === 'node-core') continue;
    viaPackage.push(copy);
    // Each message's payload frame went through ws's own functions at all.
    if (copy.side !== 'server' && r.size >= WS_MASK_FROM && copy.counts.maskFromThreshold < r.messages) {
      return `ws ${copy.version} masked ${copy.counts.maskFromThreshold} frames ≥ ${WS_MASK_FROM} B for ${r.messages} messages`;
    }
    if (copy.side !== 'client' && r.size >= WS_UNMASK_FROM && copy.counts.unmaskFromThreshold < r.messages) {
      return `ws ${copy.version} unmasked ${copy.counts.unmaskFromThreshold} frames ≥ ${WS_UNMASK_FROM} B for ${r.messages} messages`;
    }
  }
  const expectedMask = viaPackage.reduce((sum, copy) => sum + copy.counts.maskFromThreshold, 0);
  const expectedUnmask = viaPackage.reduce((sum, copy) => sum + copy.counts.unmaskFromThreshold, 0);
  if (mask !== expectedMask) return `mask reached the implementation ${mask} of ${expectedMask} times`;
  if (unmask !== expectedUnmask) return `unmask reached the implementation ${unmask} of ${expectedUnmask} times`;
  return null;
}

/**
 * The undici view: the server unmasked every message's frame through bufferutil-simd (the shim); the client
 * masked each through it exactly when it is the patched undici, and otherwise with its own loops.
 */
function undiciWiringProblem(testCase, r) {
  if (testCase.id === 'ws-js-both') {
    if (r.bufferutilRequests !== 0) return `required bufferutil (${r.dispatch})`;
    if (r.clientDispatch !== 'ws-js' || r.ws[0].dispatch !== 'ws-js')
      return `expected ws's own loops at both ends, got ${r.dispatch}`;
    if (r.ws[0].counts.mask < r.messages || r.ws[0].counts.unmask < r.messages)
      return `ws masked/unmasked fewer frames than ${r.messages} messages`;
    return null;
  }
  if (!r.implementationCalls) return 'the server never required bufferutil';
  const { mask, unmask } = r.implementationCalls;
  if (unmask !== r.messages) return `the server unmasked ${unmask} of ${r.messages} frames through bufferutil-simd`;
  if (testCase.id === 'undici-simd') {
    if (!r.patched || r.maskerRequests === 0) return `the patched undici did not load bufferutil-simd (${r.clientDispatch})`;
    if (mask !== r.messages) return `undici masked ${mask} of ${r.messages} frames through bufferutil-simd`;
    return null;
  }
  if (mask !== 0) return `${mask} client frames were masked through bufferutil-simd`;
  if (testCase.id === 'undici' && (r.patched || r.maskerRequests !== 0)) return 'the published undici is patched';
  if (testCase.id === 'ws-js') {
    if (r.clientDispatch !== 'ws-js') return `expected ws's own loop, got ${r.clientDispatch}`;
    if (r.ws[0].counts.mask < r.messages) return `ws masked ${r.ws[0].counts.mask} frames for ${r.messages} messages`;
  }
  return null;
}

function parent() {
  const http = require('node:http');
  const coreMask = typeof http.websocketMask === 'function';
  const needsConsumers = VIEWS.some((view) => view.id === 'websocket-node' || view.id === 'socket.io');
  const consumers = needsConsumers ? ensureConsumers() : null;
  if (VIEWS.some((view) => view.id === 'undici')) process.on('exit', prepareUndici());
  const windows = VIEWS.filter((view) => view.window).map((view) => `${view.id}: ${view.window}`);
  console.log(
    `node ${process.version}; ${SECONDS} s per case after ${WARMUP_SECONDS} s warm-up; window ${WINDOW}${windows.length ? ` (${windows.join(', ')})` : ''}; 127.0.0.1 only`
  );
  console.log(`Node core masking (http.websocketMask): ${coreMask ? 'yes' : 'no'}`);
  const notes = {};
  for (const view of VIEWS) {
    if (view.id === 'ws') {
      notes.ws = coreMask
        ? 'it uses http.websocketMask on this Node (the node-core case); the other cases hide it, so ws falls back as on Node ≤ 24.'
        : 'no core case: this Node has no http.websocketMask.';
    } else if (view.id === 'undici') {
      notes[view.id] =
        `send one binary message, await its echo. Server: ws ${require('ws/package.json').version} unmasking through bufferutil-simd in every case` +
        `${coreMask ? ' (http.websocketMask hidden)' : ''}; clients: undici ${UNDICI} from ${path.relative(ROOT, UNDICI_DIRS.published)}, ` +
        `the same copied and patched (scripts/lib/masking-patches.js), ws's client with its JS loop.`;
    } else if (view.id === 'websocket-node') {
      notes[view.id] = 'no core case: it requires bufferutil and calls it for every frame; it has no http.websocketMask path.';
    } else {
      const serverWs = wsAlong(consumers, ['socket.io', 'engine.io']);
      const clientWs = wsAlong(consumers, ['socket.io-client', 'engine.io-client']);
      const uses = (ws) =>
        ws.corePath
          ? coreMask
            ? 'http.websocketMask on this Node, in every case'
            : 'bufferutil on this Node (no http.websocketMask)'
          : 'bufferutil (no core path)';
      notes[view.id] =
        `${clientWs.corePath ? '' : 'no core case: '}client ${clientWs.owner} → ws ${clientWs.version} masks with ${uses(clientWs)}; ` +
        `server ${serverWs.owner} → ws ${serverWs.version} unmasks with ${uses(serverWs)}.`;
    }
    console.log(`${view.title}: ${notes[view.id]}`);
  }

  console.log(`${ROUNDS} round${ROUNDS === 1 ? '' : 's'} per size; the order of the cases rotates each round`);
  const rows = [];
  const problems = [];
  for (const view of VIEWS) {
    for (const size of view.sizes) {
      const cases = view.cases(coreMask);
      for (let round = 0; round < ROUNDS; round++) {
        // Each case goes first in turn: a drift over a round (heat, a neighbour's load) hits them alike.
        const order = cases.map((_, i) => cases[(i + round) % cases.length]);
        for (const testCase of order) {
          const r = runCase(view, testCase, size, consumers);
          const problem = wiringProblem(view, testCase, r);
          if (problem) problems.push(`${view.id} ${testCase.id} ${formatSize(r.size)}: ${problem}`);
          rows.push({ case: testCase.id, label: testCase.label, round, ...r });
          const calls = r.implementationCalls
            ? `impl calls mask ${r.implementationCalls.mask}, unmask ${r.implementationCalls.unmask}`
            : 'impl calls -';
          const wsCalls = r.ws.map(
            (copy) =>
              `ws ${copy.version}${r.ws.length > 1 ? ` (${copy.side})` : ''} mask ${copy.counts.mask}, unmask ${copy.counts.unmask}`
          );
          console.log(
            `${view.id.padEnd(14)} ${formatSize(r.size).padStart(7)} ${testCase.id.padEnd(16)} ` +
              `${ROUNDS > 1 ? `round ${round + 1}/${ROUNDS} ` : ''}${r.messages} msgs, ` +
              `${r.messagesPerSecond.toFixed(0)} msgs/s, ${r.mbpsEachWay.toFixed(1)} MB/s each way, ${r.cpuMicrosPerMessage.toFixed(1)} µs CPU/msg; ` +
              `${r.dispatch}; ${[...wsCalls, calls].join('; ')}`
          );
        }
      }
    }
  }

  for (const view of VIEWS) {
    console.log(`\n### ${view.title}\n\n${notes[view.id]}\n`);
    if (ROUNDS > 1) {
      console.log(`Medians over ${ROUNDS} rounds; ratios are medians of per-round ratios [lowest–highest].\n`);
    }
    const baselines = view.baselines ?? [{ id: 'bufferutil', short: 'bufferutil' }];
    const perEcho = view.window === 1;
    console.log(
      `| size | implementation | used | msgs/s |${perEcho ? ' µs per echo |' : ''} MB/s each way | CPU µs/msg | ` +
        `${baselines.map((b) => `msgs/s ÷ ${b.short}`).join(' | ')} | ${baselines[0].short} CPU/msg ÷ this |`
    );
    console.log(`|---:|---|---|---:|${perEcho ? '---:|' : ''}---:|---:|${baselines.map(() => '---:|').join('')}---:|`);
    const spread = (values) =>
      ROUNDS > 1
        ? `${median(values).toFixed(2)}× [${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}]`
        : `${values[0].toFixed(2)}×`;
    for (const size of view.sizes) {
      for (const testCase of view.cases(coreMask)) {
        const runs = rows.filter((row) => row.view === view.id && row.size === size && row.case === testCase.id);
        const base = (id, round) => rows.find((b) => b.view === view.id && b.size === size && b.case === id && b.round === round);
        const speeds = baselines.map((b) => spread(runs.map((r) => r.messagesPerSecond / base(b.id, r.round).messagesPerSecond)));
        const cpu = runs.map((r) => base(baselines[0].id, r.round).cpuMicrosPerMessage / r.cpuMicrosPerMessage);
        const rate = median(runs.map((r) => r.messagesPerSecond));
        console.log(
          `| ${formatSize(size)} | ${testCase.label} | ${runs[0].dispatch} | ${rate.toFixed(0)} |${perEcho ? ` ${(1e6 / rate).toFixed(1)} |` : ''} ` +
            `${median(runs.map((r) => r.mbpsEachWay)).toFixed(1)} | ${median(runs.map((r) => r.cpuMicrosPerMessage)).toFixed(1)} | ` +
            `${speeds.join(' | ')} | ${spread(cpu)} |`
        );
      }
    }
  }
  if (CPU_PROF) console.log(`\nCPU profiles: ${path.relative(ROOT, RESULTS)}/e2e-*.cpuprofile (open in Chrome DevTools)`);
  if (problems.length > 0) {
    console.error(`\nFAILED:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
}

if (process.env.E2E_CHILD) {
  child().catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  parent();
}
