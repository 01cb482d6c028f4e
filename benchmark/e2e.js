'use strict';

// `npm run bench:e2e`: a WebSocket server and client echoing over 127.0.0.1 in a child process per consumer of
// `bufferutil` (a view), message size and masking implementation (a case), each case's path verified;
// benchmark/README.md gives the views, the flags and the verification.

const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');
const { MASKER_FROM, undiciPin, patchUndici } = require('../__test__/helpers/masking-patches');
const { HOME: CACHE, cached, run } = require('../scripts/lib/runtimes');
const { args, parse, fail, bytes, median, spread, formatSpread, formatSize } = require('./lib/common');
const { markdown, machine, counting } = require('./lib/common');
const { load, WS_BUFFER_UTIL } = require('./lib/implementations');

const ROOT = path.resolve(__dirname, '..');
const [KiB, MiB] = [1024, 2 ** 20];
const WINDOW = 8; // echoes in flight, but where a view sets its own
const { option, list, listOf, quick: QUICK, positive } = parse(['seconds', 'rounds', 'views', 'sizes']);
const [SECONDS, WARMUP_SECONDS] = QUICK ? [0.3, 0.05] : [positive('seconds', 3), 0.3];
const ROUNDS = QUICK ? 1 : positive('rounds', 1, true);
const CORE = typeof http.websocketMask === 'function';
const PINS = { websocket: '1.0.35', 'socket.io': '4.8.4', 'socket.io-client': '4.8.4' };
const UNDICI = undiciPin();
const WS = `ws ${require('ws/package.json').version}`;

// `via`: where a case's payload bytes must be masked and unmasked: 'impl' (its target, counted by the child,
// the default), 'core' (http.websocketMask; a case without it has core hidden) or 'js' (the consumer's own loop).
const BUFFERUTIL = { id: 'bufferutil', label: 'bufferutil', target: require.resolve('bufferutil') };
const SIMD = { id: 'bufferutil-simd', label: 'bufferutil-simd', target: require.resolve(ROOT) };
const WS_JS = { env: { WS_NO_BUFFER_UTIL: '1' }, via: ['js', 'js'] };

// Per view: its cases and its table's note, or a `setup()` making them (in the parent only: it may install the consumer).
const VIEWS = [
  {
    id: 'ws',
    title: WS,
    sizes: [64 * KiB, MiB, 125],
    note: CORE
      ? 'ws prefers http.websocketMask on this Node (the node-core case); the other cases hide it, as on Node ≤ 24.'
      : 'No node-core case: this Node has no http.websocketMask.',
    cases: [
      BUFFERUTIL,
      SIMD,
      { ...WS_JS, id: 'ws-js', label: 'WS_NO_BUFFER_UTIL=1 (ws JS loop)' },
      ...(CORE ? [{ id: 'node-core', label: `node ${process.version} http.websocketMask`, via: ['core', 'core'] }] : []),
    ],
  },
  {
    id: 'websocket-node',
    title: `WebSocket-Node ${PINS.websocket}`,
    sizes: [125, 16 * KiB, MiB],
    setup: () => ({
      note: `It calls bufferutil for every frame (16 KiB fragments) and has no http.websocketMask path. From ${consumers()}.`,
      cases: [BUFFERUTIL, SIMD],
    }),
  },
  {
    id: 'socket.io',
    title: `socket.io ${PINS['socket.io']}`,
    sizes: [125, 16 * KiB, MiB],
    // `via`: the client's ws has no http.websocketMask path, the server's takes it where Node has it; a case whose
    // bytes go another way fails its check.
    setup: () => ({
      note: `From ${consumers()}: the client's ws has no http.websocketMask path, the server's uses it where Node has it.`,
      cases: [BUFFERUTIL, SIMD].map((c) => ({ ...c, via: ['impl', CORE ? 'core' : 'impl'] })),
    }),
  },
  {
    id: 'undici',
    title: `undici ${UNDICI}`,
    sizes: QUICK ? [125, 256 * KiB] : [125, 16 * KiB, 256 * KiB, MiB],
    window: 1,
    baselines: { undici: 'published undici', 'ws-js': 'ws JS loop', 'ws-js-both': 'ws JS loops both ends' },
    setup: () => {
      const { published, patched } = prepareUndici();
      const server = { target: SIMD.target, via: ['js', 'impl'] };
      return {
        note:
          `Send one binary message, await its echo. The server is ${WS} unmasking through bufferutil-simd ` +
          `(http.websocketMask hidden) in all but the last case. Published undici: ${published}; patched: a copy ` +
          `through __test__/helpers/masking-patches.js.`,
        cases: [
          { ...server, id: 'undici', label: `undici ${UNDICI} as published (byte loops)`, undiciDir: published },
          { ...SIMD, id: 'undici-simd', label: `undici ${UNDICI} + bufferutil-simd from ${MASKER_FROM} B`, undiciDir: patched },
          { ...server, id: 'ws-js', label: `${WS} client, its JS loop`, client: 'ws-js' },
          { ...WS_JS, id: 'ws-js-both', label: `${WS} client and server, JS loops (WS_NO_BUFFER_UTIL=1)`, client: 'ws' },
        ],
      };
    },
  },
];

/** `folder` with `specs` installed (exact, --ignore-scripts), first if missing: the consumers not in devDependencies. */
function installed(folder, specs) {
  cached(folder, 'node_modules/.package-lock.json', `${specs.join(' ')} (--ignore-scripts)`, (staging) => {
    fs.writeFileSync(path.join(staging, 'package.json'), JSON.stringify({ name: 'e2e-consumers', private: true }));
    const flags = ['--no-audit', '--no-fund', '--no-update-notifier', '--ignore-scripts', '--save-exact'];
    run('npm', ['install', ...flags, ...specs], { cwd: staging, stdio: ['ignore', 'ignore', 'inherit'] });
  });
  return folder;
}

const SPECS = Object.entries(PINS).map(([name, version]) => `${name}@${version}`);
const consumers = () => installed(path.join(CACHE, 'e2e-consumers', SPECS.join('_').replaceAll('@', '-')), SPECS);

/** The published undici from the cache and a patched copy in a temporary folder, removed on exit. */
function prepareUndici() {
  const folder = installed(path.join(CACHE, 'e2e-undici', `undici-${UNDICI}`), [`undici@${UNDICI}`]);
  const published = path.join(folder, 'node_modules', 'undici');
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-e2e-undici-'));
  process.on('exit', () => fs.rmSync(temp, { recursive: true, force: true }));
  const patched = path.join(temp, 'node_modules', 'undici');
  fs.cpSync(published, patched, { recursive: true });
  patchUndici(patched);
  return { published, patched };
}

// Child: one view, case and size. Each endpoint connects a client to a server that runs `check` on each message and
// echoes it, hands each echo to `reply` and resolves to the client's send function. The child exits when done.

const listen = (server) => new Promise((done, fail) => server.once('error', fail).listen(0, '127.0.0.1', done));
const consumerRequire = (name) => Module.createRequire(path.join(consumers(), 'package.json'))(name);

/** A ws server on 127.0.0.1 sending each binary message back, `check` seeing it first. */
async function wsServer(check) {
  const server = new (require('ws').WebSocketServer)({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise((done) => server.once('listening', done));
  server.on('connection', (socket) =>
    socket.on('message', (data, isBinary) => {
      check(isBinary && data);
      socket.send(data, { binary: true });
    })
  );
  return server;
}

const ENDPOINTS = {
  async ws({ check, reply }) {
    const server = await wsServer(check);
    const client = new (require('ws').WebSocket)(`ws://127.0.0.1:${server.address().port}`, { perMessageDeflate: false });
    await new Promise((done, fail) => client.once('open', done).once('error', fail));
    client.on('message', reply);
    return (data) => client.send(data, { binary: true });
  },

  async 'websocket-node'({ check, reply }) {
    const { server: WebSocketServer, client: WebSocketClient } = consumerRequire('websocket');
    const httpServer = http.createServer();
    await listen(httpServer);
    // Its defaults but keep-alive pings; a limit above 1 MiB rather than relying on it being inclusive.
    const options = { autoAcceptConnections: false, keepalive: false, maxReceivedMessageSize: 2 * MiB };
    const server = new WebSocketServer({ httpServer, ...options });
    server.on('request', (request) => {
      const connection = request.accept(null, request.origin);
      connection.on('message', (message) => {
        check(message.type === 'binary' && message.binaryData);
        connection.sendBytes(message.binaryData);
      });
    });
    const client = new WebSocketClient();
    const url = `ws://127.0.0.1:${httpServer.address().port}/`;
    const connection = await new Promise((done, fail) => client.once('connect', done).once('connectFailed', fail).connect(url));
    connection.on('message', (message) => reply(message.binaryData));
    return (data) => connection.sendBytes(data);
  },

  async 'socket.io'({ check, reply }) {
    const { Server } = consumerRequire('socket.io');
    const { io } = consumerRequire('socket.io-client');
    const httpServer = http.createServer();
    // Its default limit (1 MB) would refuse a 1 MiB message.
    const ioServer = new Server(httpServer, { transports: ['websocket'], maxHttpBufferSize: 2 * MiB, serveClient: false });
    ioServer.on('connection', (socket) =>
      socket.on('echo', (data) => {
        check(Buffer.isBuffer(data) && data);
        socket.emit('echo', data);
      })
    );
    await listen(httpServer);
    const url = `http://127.0.0.1:${httpServer.address().port}`;
    const socket = io(url, { transports: ['websocket'], reconnection: false, forceNew: true });
    await new Promise((done, fail) => socket.once('connect', done).once('connect_error', fail));
    socket.on('echo', reply);
    return (data) => socket.emit('echo', data);
  },

  async undici({ check, reply, client, undiciDir }) {
    if (client === 'ws-js') {
      // ws's client masks with its JS loop while its server, in this process, unmasks through its target:
      // set before ws's sender takes `mask` from its buffer-util.
      const { mask } = load(['ws-js']).loaded[0]; // first: it loads buffer-util afresh and drops it from the cache
      require(WS_BUFFER_UTIL).mask = mask;
    }
    if (client) return ENDPOINTS.ws({ check, reply });
    const server = await wsServer(check);
    const socket = new (require(undiciDir).WebSocket)(`ws://127.0.0.1:${server.address().port}`);
    socket.binaryType = 'arraybuffer';
    await new Promise((done, fail) => {
      socket.onopen = done;
      socket.onerror = (event) => fail(event.error ?? new Error('undici WebSocket error'));
    });
    socket.addEventListener('message', ({ data }) => reply(Buffer.from(data)));
    return (data) => socket.send(data);
  },
};

async function child({ view, size, via = ['impl', 'impl'], target = BUFFERUTIL.target, ...options }) {
  // Before any consumer loads: ws reads http.websocketMask once, when it loads.
  const core = counting({ mask: http.websocketMask, unmask: http.websocketUnmask });
  const counted = via.includes('core') ? core : {};
  if (CORE) Object.assign(http, { websocketMask: counted.mask, websocketUnmask: counted.unmask });
  // `require('bufferutil')` (and the patched undici's `require('bufferutil-simd')`) gets this module: `target`, counted.
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return request === 'bufferutil' || request === 'bufferutil-simd' ? __filename : resolve.call(this, request, ...rest);
  };
  const [impl, { name, version }] = [require(target), require(path.join(path.dirname(target), 'package.json'))];
  module.exports = { ...counting(impl), label: `${name} ${version}${impl.backend ? ` (${impl.backend})` : ''}` };

  const window = VIEWS.find((v) => v.id === view).window ?? WINDOW;
  const payload = crypto.randomBytes(size);
  let [serverMessages, corrupt] = [0, 0];
  const check = (data) => {
    if ((serverMessages++ & 15) === 0 && !data?.equals(payload)) corrupt++;
  };
  let handler = null;
  const sendPayload = await ENDPOINTS[view]({ check, reply: (data) => handler(data), ...options });
  // Sends until `until` (performance.now() ms), keeping `window` echoes outstanding; resolves to the echoes.
  const exchange = (until) =>
    new Promise((done) => {
      let [sent, received] = [0, 0];
      const send = () => {
        sent++;
        sendPayload(payload);
      };
      handler = (data) => {
        received++;
        if (data?.length !== size) corrupt++;
        if (performance.now() < until) send();
        else if (received === sent) done(received);
      };
      for (let i = 0; i < window; i++) send();
    });
  const verify = (messages) => {
    const through = { impl: module.exports.counts, core: core.counts };
    const problems = corrupt > 0 ? [`${corrupt} corrupt messages`] : [];
    for (const [i, op] of ['mask', 'unmask'].entries()) {
      for (const where of ['impl', 'core']) {
        const n = through[where][op];
        if (where === via[i] ? n < messages * size : n > 0)
          problems.push(`${op}: ${n} B through ${where} for ${messages} messages of ${size} B; expected ${via[i]}`);
      }
    }
    if (problems.length > 0) throw new Error(problems.join('\n'));
  };

  const warmup = await exchange(performance.now() + WARMUP_SECONDS * 1e3);
  verify(warmup);
  const [cpuBefore, started] = [process.cpuUsage(), performance.now()];
  const messages = await exchange(started + SECONDS * 1e3);
  const [elapsedMs, cpu] = [performance.now() - started, process.cpuUsage(cpuBefore)];
  verify(warmup + messages);
  const names = { impl: module.exports.label, core: 'http.websocketMask', js: 'own JS loop' };
  const used = via[0] === via[1] ? names[via[0]] : `mask ${names[via[0]]}, unmask ${names[via[1]]}`;
  const result = { messages, elapsedMs, cpuMicros: cpu.user + cpu.system, used };
  process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
}

// Parent: every view, size and case, in a child process each; cases interleaved per view and size.

function runCase(view, testCase, size) {
  const { BUFFERUTIL_SIMD_LEVEL, WS_NO_BUFFER_UTIL, ...inherited } = process.env; // the case sets them or nothing does
  const env = { ...inherited, ...testCase.env, E2E_CHILD: JSON.stringify({ ...testCase, view: view.id, size }) };
  const options = { env, encoding: 'utf8', timeout: (SECONDS + 30) * 1e3 };
  const result = spawnSync(process.execPath, [__filename, ...args], options);
  const what = `${view.id} ${testCase.id} ${formatSize(size)} (${result.status ?? result.signal})`;
  if (result.status !== 0) fail(`\nFAILED: ${what}:\n${result.stderr}`);
  const r = JSON.parse(result.stdout.trim().split('\n').pop());
  const rate = r.messages / (r.elapsedMs / 1e3);
  return { ...r, rate, mbps: (rate * size) / 1e6, cpu: r.cpuMicros / r.messages };
}

function main() {
  const ids = VIEWS.map((view) => view.id);
  const only = listOf('views', ids);
  const sizes = option('sizes') && list('sizes').map(bytes);
  const views = VIEWS.filter((view) => only.includes(view.id))
    .map((view) => ({ ...view, sizes: view.sizes.filter((size) => !sizes || sizes.includes(size)) }))
    .filter((view) => view.sizes.length > 0)
    .map((view) => ({ ...view, ...view.setup?.() }));
  if (!views.length)
    fail(
      `--sizes=${option('sizes')} leaves no case: the views' sizes are ${[...new Set(VIEWS.flatMap((view) => view.sizes))].join(', ')}`,
      2
    );
  const windows = views.filter((view) => view.window).map((view) => `, ${view.id} ${view.window}`);
  console.log(machine());
  console.log(
    `${SECONDS} s per case after ${WARMUP_SECONDS} s warm-up, ${ROUNDS} round${ROUNDS === 1 ? '' : 's'}, the order rotating; ` +
      `${WINDOW} messages in flight${windows.join('')}; 127.0.0.1; http.websocketMask: ${CORE ? 'yes' : 'no'}`
  );
  const runs = new Map(); // `${view} ${size} ${case}` → one result per round
  for (const view of views) {
    for (const size of view.sizes) {
      for (let round = 0; round < ROUNDS; round++) {
        // Each case goes first in turn: a drift over a round (heat, a neighbour's load) hits them alike.
        for (const testCase of view.cases.map((_, i) => view.cases[(i + round) % view.cases.length])) {
          const r = runCase(view, testCase, size);
          const key = `${view.id} ${size} ${testCase.id}`;
          runs.set(key, [...(runs.get(key) ?? []), r]);
          console.log(
            `${view.id.padEnd(14)} ${formatSize(size).padStart(7)} ${testCase.id.padEnd(16)} ` +
              `${ROUNDS > 1 ? `round ${round + 1}/${ROUNDS} ` : ''}${r.rate.toFixed(0)} msgs/s, ` +
              `${r.mbps.toFixed(1)} MB/s each way, ${r.cpu.toFixed(1)} µs CPU/msg; ${r.used}`
          );
        }
      }
    }
  }

  const ratio = (values) => (ROUNDS === 1 ? `${values[0].toFixed(2)}×` : formatSpread(spread(values), '×', '[]'));
  for (const view of views) {
    console.log(`\n### ${view.title}\n\n${view.note}\n`);
    if (ROUNDS > 1) console.log(`Medians over ${ROUNDS} rounds; ratios are medians of per-round ratios [lowest–highest].\n`);
    const baselines = Object.entries(view.baselines ?? { bufferutil: 'bufferutil' });
    const perEcho = view.window === 1;
    const head = ['size', 'implementation', 'used', 'msgs/s', ...(perEcho ? ['µs per echo'] : []), 'MB/s each way', 'CPU µs/msg'];
    head.push(...baselines.map(([, name]) => `msgs/s ÷ ${name}`), `${baselines[0][1]} CPU/msg ÷ this`);
    const rows = view.sizes.flatMap((size) => {
      const of = (id) => runs.get(`${view.id} ${size} ${id}`);
      return view.cases.map((testCase) => {
        const mine = of(testCase.id);
        const [rate, mbps, cpu] = ['rate', 'mbps', 'cpu'].map((figure) => median(mine.map((r) => r[figure])));
        const figures = [rate.toFixed(0), ...(perEcho ? [(1e6 / rate).toFixed(1)] : []), mbps.toFixed(1), cpu.toFixed(1)];
        const speeds = baselines.map(([id]) => ratio(mine.map((r, round) => r.rate / of(id)[round].rate)));
        const cpuRatio = ratio(mine.map((r, round) => of(baselines[0][0])[round].cpu / r.cpu));
        return [formatSize(size), testCase.label, mine[0].used, ...figures, ...speeds, cpuRatio];
      });
    });
    console.log(markdown(head, (i) => i !== 1 && i !== 2, rows));
  }
}

if (process.env.E2E_CHILD) child(JSON.parse(process.env.E2E_CHILD)).catch(fail);
else main();
