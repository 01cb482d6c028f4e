'use strict';

// `npm run bench:e2e`: a ws server and a ws client in one process on 127.0.0.1, echoing binary messages
// with 8 in flight, once per implementation of ws's masking, each in a child process of its own.
//
//   node benchmark/e2e.js [--quick] [--cpu-prof] [--hide-core-mask]
//     --quick, BENCH_QUICK=1       ~0.3 s per case instead of 3 s (CI: proves the wiring, not speed)
//     --cpu-prof, E2E_CPU_PROF=1   a V8 CPU profile per case in benchmark/results/*.cpuprofile
//     --hide-core-mask             on Node 26+, hide http.websocketMask so ws falls back to bufferutil
//
// How bufferutil-simd replaces bufferutil: ws calls `require('bufferutil')` by name, and this repo's own
// node_modules/bufferutil always wins that lookup (NODE_PATH is only tried after node_modules fails, so a
// NODE_PATH shim dir could never take over). So each child hooks Module._resolveFilename before loading
// ws: the name 'bufferutil' resolves to lib/counting-bufferutil.js, which forwards to the implementation
// under test (an absolute path) and counts calls. ws's own buffer-util exports are wrapped before ws's
// sender and receiver take them, so the counts also show how many frames ws masked and unmasked at all.
//
// Client-to-server frames are masked by the client (into a fresh frame buffer at offset 6, 8 or 14) and
// unmasked in place by the server; server-to-client frames are not masked (RFC 6455 §5.1).

const { spawnSync } = require('child_process');
const crypto = require('crypto');
const Module = require('module');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const RESULTS = path.join(__dirname, 'results');
const KiB = 1024;
const MiB = 1024 * KiB;
const WINDOW = 8;

const flag = (name, variable) => process.argv.includes(`--${name}`) || /^(1|true|yes)$/i.test(process.env[variable] || '');
const QUICK = flag('quick', 'BENCH_QUICK');
const CPU_PROF = flag('cpu-prof', 'E2E_CPU_PROF');
const HIDE_CORE_MASK = flag('hide-core-mask', 'E2E_HIDE_CORE_MASK');

// Wall-clock budget and a count cap per message size: whichever comes first ends the case.
const SIZES = [
  { size: 64 * KiB, maxMessages: 200_000 },
  { size: MiB, maxMessages: 20_000 },
  { size: 125, maxMessages: 2_000_000 },
];
const SECONDS = QUICK ? 0.3 : 3;
const WARMUP_SECONDS = QUICK ? 0.05 : 0.3;

const CASES = [
  { id: 'bufferutil', label: 'bufferutil 4.1.0', target: require.resolve('bufferutil') },
  { id: 'bufferutil-simd', label: 'bufferutil-simd', target: require.resolve(ROOT) },
  { id: 'ws-js', label: 'WS_NO_BUFFER_UTIL=1 (ws JS loop)', env: { WS_NO_BUFFER_UTIL: '1' } },
];

// ---------------------------------------------------------------------------------------------------
// Child: one implementation, one message size.

async function child() {
  const { size, maxMessages, seconds, warmupSeconds, hideCoreMask } = JSON.parse(process.env.E2E_CHILD);
  const http = require('http');
  const coreMask = typeof http.websocketMask === 'function';
  if (hideCoreMask && coreMask) Object.assign(http, { websocketMask: undefined, websocketUnmask: undefined });

  let bufferutilRequests = 0;
  const shim = path.join(__dirname, 'lib', 'counting-bufferutil.js');
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (request === 'bufferutil') {
      bufferutilRequests++;
      if (process.env.E2E_BUFFERUTIL_TARGET) return shim;
    }
    return resolve.call(this, request, ...rest);
  };

  // Wrap ws's buffer-util exports before sender.js and receiver.js destructure them.
  const bufferUtil = require(path.join(path.dirname(require.resolve('ws')), 'lib', 'buffer-util.js'));
  const wsCounts = { mask: 0, unmask: 0 };
  const wsUsesOwnLoop = bufferUtil.mask.name === '_mask';
  const { mask: wsMask, unmask: wsUnmask } = bufferUtil;
  bufferUtil.mask = (source, mask, output, offset, length) => {
    wsCounts.mask++;
    wsMask(source, mask, output, offset, length);
  };
  bufferUtil.unmask = (buffer, mask) => {
    wsCounts.unmask++;
    wsUnmask(buffer, mask);
  };
  const { WebSocket, WebSocketServer } = require('ws');
  const loaded = require.cache[shim]?.exports;
  const dispatch = coreMask && !hideCoreMask ? 'node-core' : loaded ? `bufferutil → ${path.relative(ROOT, loaded.target)}` : wsUsesOwnLoop ? 'ws-js' : 'unknown';

  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise((done) => server.once('listening', done));
  const payload = crypto.randomBytes(size);
  let serverMessages = 0;
  let corrupt = 0;
  server.on('connection', (socket) => {
    socket.on('message', (data, isBinary) => {
      // The server sees the client's masked frame unmasked: check it byte for byte now and then.
      if ((serverMessages++ & 15) === 0 && !(isBinary && data.equals(payload))) corrupt++;
      socket.send(data, { binary: true });
    });
  });
  const client = new WebSocket(`ws://127.0.0.1:${server.address().port}`, { perMessageDeflate: false });
  await new Promise((done, fail) => client.once('open', done).once('error', fail));

  // Sends until `until` ms (monotonic) or `count` messages, keeping WINDOW echoes outstanding.
  const exchange = (until, count) =>
    new Promise((done) => {
      let sent = 0;
      let received = 0;
      const send = () => {
        sent++;
        client.send(payload, { binary: true });
      };
      const onMessage = (data) => {
        received++;
        if (data.length !== size) corrupt++;
        if (sent < count && performance.now() < until) send();
        else if (received === sent) {
          client.off('message', onMessage);
          done(received);
        }
      };
      client.on('message', onMessage);
      for (let i = 0; i < Math.min(WINDOW, count); i++) send();
    });

  await exchange(performance.now() + warmupSeconds * 1e3, maxMessages);
  const countsBefore = { ...(loaded?.counts ?? {}) };
  const wsCountsBefore = { ...wsCounts };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const messages = await exchange(started + seconds * 1e3, maxMessages);
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const counts = loaded ? Object.fromEntries(Object.entries(loaded.counts).map(([k, v]) => [k, v - countsBefore[k]])) : null;

  client.close();
  server.close();
  const bytes = messages * size;
  process.stdout.write(
    `${JSON.stringify({
      size,
      messages,
      elapsedMs,
      corrupt,
      // An echo carries the same bytes both ways: masked client→server, unmasked server→client.
      mbpsEachWay: bytes / elapsedMs / 1e3,
      cpuMicrosPerMessage: (cpu.user + cpu.system) / messages,
      cpuUserMicros: cpu.user,
      cpuSystemMicros: cpu.system,
      dispatch,
      coreMask,
      bufferutilRequests,
      backend: loaded?.backend,
      implementationCalls: counts,
      wsCalls: { mask: wsCounts.mask - wsCountsBefore.mask, unmask: wsCounts.unmask - wsCountsBefore.unmask },
    })}\n`,
  );
}

// ---------------------------------------------------------------------------------------------------
// Parent: every case at every size, cases interleaved per size so slow drifts hit them alike.

function runCase(testCase, sizeSpec) {
  const args = [];
  if (CPU_PROF) {
    args.push('--cpu-prof', `--cpu-prof-dir=${RESULTS}`, `--cpu-prof-name=e2e-${testCase.id}-${sizeSpec.size}.cpuprofile`);
  }
  const env = { ...process.env, ...testCase.env, E2E_BUFFERUTIL_TARGET: testCase.target ?? '' };
  delete env.BUFFERUTIL_SIMD_LEVEL;
  if (!testCase.env?.WS_NO_BUFFER_UTIL) delete env.WS_NO_BUFFER_UTIL;
  env.E2E_CHILD = JSON.stringify({ ...sizeSpec, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, hideCoreMask: HIDE_CORE_MASK });
  const result = spawnSync(process.execPath, [...args, __filename], { env, encoding: 'utf8', timeout: (SECONDS + 30) * 1e3 });
  if (result.status !== 0) throw new Error(`${testCase.id} ${sizeSpec.size} B: child failed (${result.status ?? result.signal})\n${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop());
}

function formatSize(bytes) {
  return bytes >= MiB ? `${bytes / MiB} MiB` : bytes >= KiB ? `${bytes / KiB} KiB` : `${bytes} B`;
}

/** Whether ws used what the case meant to test; explains any mismatch. */
function wiringProblem(testCase, r) {
  if (r.corrupt > 0) return `${r.corrupt} corrupt messages`;
  if (r.dispatch === 'node-core') return null; // reported separately: ws ignores bufferutil on this Node
  if (testCase.target) {
    if (r.bufferutilRequests === 0 || !r.implementationCalls) return 'ws never required bufferutil';
    // Below 48 B (mask) and 32 B (unmask) ws keeps its own loop; above, every frame goes through bufferutil.
    const expected = r.size >= 48 ? r.wsCalls.mask : 0;
    if (r.implementationCalls.mask < expected) return `mask reached the implementation ${r.implementationCalls.mask} of ${expected} times`;
    if (r.size >= 32 && r.implementationCalls.unmask < r.wsCalls.unmask) return 'unmask bypassed the implementation';
    return null;
  }
  return r.dispatch === 'ws-js' && r.bufferutilRequests === 0 ? null : `expected ws's JS loop, got ${r.dispatch}`;
}

function parent() {
  const http = require('http');
  const coreMask = typeof http.websocketMask === 'function';
  console.log(`node ${process.version}; ${SECONDS} s per case after ${WARMUP_SECONDS} s warm-up; window ${WINDOW}; 127.0.0.1 only`);
  if (coreMask && !HIDE_CORE_MASK) {
    console.log(
      `NOTE: this Node has http.websocketMask, and ws ${require('ws/package.json').version} then uses it and never loads ` +
        'bufferutil (nor honours WS_NO_BUFFER_UTIL): all three cases run Node core masking. Pass --hide-core-mask to compare.',
    );
  }
  const rows = [];
  const problems = [];
  for (const sizeSpec of SIZES) {
    for (const testCase of CASES) {
      const r = runCase(testCase, sizeSpec);
      const problem = wiringProblem(testCase, r);
      if (problem) problems.push(`${testCase.id} ${formatSize(r.size)}: ${problem}`);
      rows.push({ case: testCase.id, label: testCase.label, ...r });
      const calls = r.implementationCalls
        ? `impl calls mask ${r.implementationCalls.mask}, unmask ${r.implementationCalls.unmask}`
        : 'impl calls -';
      console.log(
        `${formatSize(r.size).padStart(7)} ${testCase.id.padEnd(16)} ${r.messages} msgs, ` +
          `${r.mbpsEachWay.toFixed(1)} MB/s each way, ${r.cpuMicrosPerMessage.toFixed(1)} µs CPU/msg; ` +
          `ws ${r.dispatch}${r.backend ? ` (${r.backend})` : ''}; ws calls mask ${r.wsCalls.mask}, unmask ${r.wsCalls.unmask}; ${calls}`,
      );
    }
  }

  console.log('\n| size | implementation | ws used | messages | MB/s each way | CPU µs/msg | bufferutil CPU/msg ÷ this |');
  console.log('|---:|---|---|---:|---:|---:|---:|');
  for (const r of rows) {
    const base = rows.find((b) => b.size === r.size && b.case === 'bufferutil');
    console.log(
      `| ${formatSize(r.size)} | ${r.label} | ${r.dispatch}${r.backend ? ` (${r.backend})` : ''} | ${r.messages} | ` +
        `${r.mbpsEachWay.toFixed(1)} | ${r.cpuMicrosPerMessage.toFixed(1)} | ` +
        `${(base.cpuMicrosPerMessage / r.cpuMicrosPerMessage).toFixed(2)}× |`,
    );
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
