'use strict';

// `npm run bench:e2e`: a ws server and a client (a view: ws's or undici's) echoing over 127.0.0.1, a child process per
// view, message size and masking implementation (a case), each case's path verified (benchmark/README.md).

const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');
const { HOME: CACHE, cached, run } = require('../scripts/lib/runtimes');
const { parse, fail, bytes, formatSpread, formatSize, markdown, machine, childTask, runChild } = require('./lib/common');
const { median, spread } = require('../lib/harness');
const { load, WS_BUFFER_UTIL } = require('./lib/implementations');

const { option, list, listOf, quick: QUICK, positive } = parse(['seconds', 'rounds', 'views', 'sizes']);
const [SECONDS, WARMUP_SECONDS] = QUICK ? [0.3, 0.05] : [positive('seconds', 3), 0.3];
const ROUNDS = QUICK ? 1 : positive('rounds', 1, true);
// undici 8.x needs Node ≥ 22.19 (its `engines`); 7.30.2 (Node ≥ 20.18.1) has the same frame.js loops. None: no undici view.
const [major, minor] = process.versions.node.split('.').map(Number);
const UNDICI = major * 100 + minor >= 2219 ? '8.13.1' : major * 100 + minor >= 2018 ? '7.30.2' : undefined;
// Where the patched undici calls the package, as undici PR #3273 did with `ws-masking` (lib/thresholds.js has the package's own).
const MASKER_FROM = 64;
const WS = `ws ${require('ws/package.json').version}`;

// `via`: where the client masks and the server unmasks: 'impl' (through `target`, counted; the default) or 'js' (their own loop).
const BUFFERUTIL = { id: 'bufferutil', label: 'bufferutil', target: require.resolve('bufferutil') };
const SIMD = { id: 'bufferutil-simd', label: 'bufferutil-simd', target: require.resolve('..') };
const WS_JS = { env: { WS_NO_BUFFER_UTIL: '1' }, via: ['js', 'js'] };
const SIMD_SERVER = { target: SIMD.target, via: ['js', 'impl'] }; // the client's own loop, the server through this package

// Per view: its cases and its table's note. `undici`: which of prepareUndici()'s folders the client loads.
const VIEWS = [
  {
    id: 'ws',
    sizes: ['64k', '1m', '125'].map(bytes),
    window: 8,
    note: `${WS}, eight messages in flight.`,
    cases: [BUFFERUTIL, SIMD, { ...WS_JS, id: 'ws-js', label: 'WS_NO_BUFFER_UTIL=1 (ws JS loop)' }],
  },
  {
    id: 'undici',
    sizes: (QUICK ? ['125', '256k'] : ['125', '16k', '256k', '1m']).map(bytes),
    window: 1,
    baselines: { undici: 'published undici', 'ws-js': 'ws JS loop', 'ws-js-both': 'ws JS loops both ends' },
    note:
      `undici ${UNDICI}: send one binary message, await its echo; the server is ${WS} unmasking through ` +
      `bufferutil-simd but in the last case. Patched: a copy through patchUndici().`,
    cases: [
      { ...SIMD_SERVER, id: 'undici', label: `undici ${UNDICI} as published (byte loops)`, undici: 'published' },
      { ...SIMD, id: 'undici-simd', label: `undici ${UNDICI} + bufferutil-simd from ${MASKER_FROM} B`, undici: 'patched' },
      { ...SIMD_SERVER, id: 'ws-js', label: `${WS} client, its JS loop`, client: 'ws-js' },
      { ...WS_JS, id: 'ws-js-both', label: `${WS} client and server, JS loops (WS_NO_BUFFER_UTIL=1)` },
    ],
  },
].filter((view) => view.id !== 'undici' || UNDICI);

/** undici's frame.js with both masking loops routed through this package from MASKER_FROM bytes (the loop kept below that and
 * where the package is missing): `createFrame`'s into the frame buffer becomes `masker.mask`, `createFastTextFrame`'s in place
 * `masker.unmask`, `maskKey` undici's Array of 4 numbers. Each text must occur once: a moved loop fails before any timing. */
function patchUndici(dir) {
  const file = path.join(dir, 'lib', 'web', 'websocket', 'frame.js');
  const routed = (loop, call) =>
    `    if (masker !== undefined && bodyLength >= ${MASKER_FROM}) {\n      masker.${call}\n    } else {\n` +
    `${loop.replace(/^(?=.)/gm, '  ')}    }\n`;
  const into = '    for (let i = 0; i < bodyLength; ++i) {\n      buffer[offset + i] = frameData[i] ^ maskKey[i & 3]\n    }\n';
  const inPlace = '    for (let i = 0; i < bodyLength; ++i) {\n      buffer[i] ^= maskKey[i & 3]\n    }\n';
  const anchor = "const { maxUnsigned16Bit, opcodes } = require('./constants')";
  let text = fs.readFileSync(file, 'utf8');
  for (const [find, replace] of [
    [anchor, `${anchor}\nlet masker\ntry { masker = require("bufferutil-simd") } catch {}\n`],
    [into, routed(into, 'mask(frameData, maskKey, buffer, offset, bodyLength)')],
    [inPlace, routed(inPlace, 'unmask(buffer, maskKey)')],
  ]) {
    if (text.split(find).length !== 2)
      fail(`undici ${UNDICI}'s frame.js has not exactly one\n${find}\nupdate patchUndici in ${__filename}`);
    text = text.replace(find, () => replace);
  }
  fs.writeFileSync(file, text);
}

/** The published undici, installed on first use (pinned, --ignore-scripts), and a patched copy removed on exit. */
function prepareUndici() {
  const folder = path.join(CACHE, 'e2e-undici', `undici-${UNDICI}`);
  const flags = ['--ignore-scripts', '--no-audit', '--no-fund', '--no-update-notifier'];
  const manifest = cached(folder, 'node_modules/undici/package.json', `undici@${UNDICI} (--ignore-scripts)`, (staging) =>
    run('npm', ['install', '--prefix', staging, ...flags, `undici@${UNDICI}`], { stdio: ['ignore', 'ignore', 'inherit'] })
  );
  const published = path.dirname(manifest);
  const patched = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-e2e-undici-'));
  process.on('exit', () => fs.rmSync(patched, { recursive: true, force: true }));
  fs.cpSync(published, patched, { recursive: true });
  patchUndici(patched);
  return { published, patched };
}

// Child: one view, case and size; exits when done.
async function child({ size, window, via = ['impl', 'impl'], target = BUFFERUTIL.target, client, undiciDir }) {
  // Before ws loads: it reads http.websocketMask once, when it loads.
  if (http.websocketMask) Object.assign(http, { websocketMask: undefined, websocketUnmask: undefined });
  // `require('bufferutil')` (and the patched undici's `require('bufferutil-simd')`) gets this module: `target`, counted.
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return request === 'bufferutil' || request === 'bufferutil-simd' ? __filename : resolve.call(this, request, ...rest);
  };
  const impl = require(target);
  const counts = { mask: 0, unmask: 0 }; // the bytes `target` masks and unmasks
  module.exports = {
    mask(source, key, output, offset, length) {
      counts.mask += length;
      impl.mask(source, key, output, offset, length);
    },
    unmask(buffer, key) {
      counts.unmask += buffer.length;
      impl.unmask(buffer, key);
    },
  };
  // ws's client on its JS loop, its server (this process) through `target`: set before ws's sender takes `mask`.
  if (client === 'ws-js') require(WS_BUFFER_UTIL).mask = load(['ws-js']).loaded[0].mask;

  const payload = crypto.randomBytes(size);
  let [serverMessages, corrupt] = [0, 0];
  // A ws server on 127.0.0.1, uncompressed (it decides for both ends), echoing binary messages; every 16th must be what was sent.
  const server = new (require('ws').WebSocketServer)({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise((done) => server.once('listening', done));
  server.on('connection', (peer) =>
    peer.on('message', (data, isBinary) => {
      if ((serverMessages++ & 15) === 0 && !(isBinary && data.equals(payload))) corrupt++;
      peer.send(data, { binary: true });
    })
  );
  // The client, undici's in `undiciDir` or else ws's: both speak the WHATWG WebSocket API.
  const socket = new (require(undiciDir ?? 'ws').WebSocket)(`ws://127.0.0.1:${server.address().port}`);
  if (undiciDir) socket.binaryType = 'arraybuffer'; // ws's default hands over its Buffer, undici's a Blob
  await new Promise((done, fail) => {
    socket.onopen = done;
    socket.onerror = (event) => fail(event.error ?? new Error('WebSocket error'));
  });
  // Sends until `until` (performance.now() ms), keeping `window` echoes outstanding; resolves to the echoes.
  const exchange = (until) =>
    new Promise((done) => {
      let [inFlight, received] = [window, 0];
      socket.onmessage = ({ data }) => {
        received++;
        if (data.byteLength !== size) corrupt++;
        if (performance.now() < until) socket.send(payload);
        else if (--inFlight === 0) done(received);
      };
      for (let i = 0; i < window; i++) socket.send(payload);
    });
  const warmup = await exchange(performance.now() + WARMUP_SECONDS * 1e3);
  const [cpuBefore, started] = [process.cpuUsage(), performance.now()];
  const messages = await exchange(started + SECONDS * 1e3);
  const [elapsedMs, cpu] = [performance.now() - started, process.cpuUsage(cpuBefore)];
  // Every message, the warm-up's too, came back whole and went through `target` or not as the case names.
  const sent = warmup + messages;
  if (corrupt > 0) throw new Error(`${corrupt} corrupt messages`);
  for (const [i, op] of ['mask', 'unmask'].entries()) {
    if (via[i] === 'impl' ? counts[op] < sent * size : counts[op] > 0)
      throw new Error(`${op} of ${sent} × ${size} B: ${counts[op]} B through the implementation; expected ${via[i]}`);
  }
  const result = { rate: messages / (elapsedMs / 1e3), cpu: (cpu.user + cpu.system) / messages };
  process.stdout.write(JSON.stringify(result), () => process.exit(0));
}

// Parent: every view, size and case, in a child process each; cases interleaved per view and size.
function main() {
  const ids = VIEWS.map((view) => view.id);
  const only = listOf('views', ids);
  const sizes = list('sizes', '').map(bytes);
  const views = VIEWS.filter((view) => only.includes(view.id))
    .map((view) => ({ ...view, sizes: view.sizes.filter((size) => !sizes.length || sizes.includes(size)) }))
    .filter((view) => view.sizes.length > 0);
  const all = [...new Set(VIEWS.flatMap((view) => view.sizes))];
  if (!views.length) fail(`--sizes=${option('sizes')} leaves no case: the views' sizes are ${all.join(', ')}`, 2);
  const undici = views.some((view) => view.id === 'undici') ? prepareUndici() : {};
  console.log(machine());
  console.log(`${SECONDS} s per case after ${WARMUP_SECONDS} s warm-up, ${ROUNDS} round(s), the order rotating; 127.0.0.1`);
  const { BUFFERUTIL_SIMD_LEVEL, WS_NO_BUFFER_UTIL, ...inherited } = process.env; // a case sets them or nothing does
  const runs = new Map(); // `${view} ${size} ${case}` → one result per round
  for (const [view, size] of views.flatMap((view) => view.sizes.map((size) => [view, size]))) {
    for (let round = 0; round < ROUNDS; round++) {
      // Each case goes first in turn: a drift over a round (heat, a neighbour's load) hits them alike.
      for (const testCase of view.cases.map((_, i) => view.cases[(i + round) % view.cases.length])) {
        const task = { ...testCase, undiciDir: undici[testCase.undici], size, window: view.window };
        const { rate, cpu } = runChild(task, { env: { ...inherited, ...testCase.env }, timeout: (SECONDS + 30) * 1e3 });
        const key = `${view.id} ${size} ${testCase.id}`;
        runs.set(key, [...(runs.get(key) ?? []), { rate, cpu }]);
        console.log(`${key} ${round + 1}/${ROUNDS}: ${rate.toFixed(0)} msgs/s, ${cpu.toFixed(1)} µs CPU/msg`);
      }
    }
  }

  const ratio = (values) => (ROUNDS === 1 ? `${values[0].toFixed(2)}×` : formatSpread(spread(values), '×', '[]'));
  for (const view of views) {
    console.log(`\n### ${view.id}\n\n${view.note} http.websocketMask hidden, as on Node ≤ 24.\n`);
    if (ROUNDS > 1) console.log(`Medians over ${ROUNDS} rounds; ratios are medians of per-round ratios [lowest–highest].\n`);
    const baselines = Object.entries(view.baselines ?? { bufferutil: 'bufferutil' });
    const head = ['size', 'implementation', 'msgs/s', 'µs per message', 'CPU µs/msg'];
    const rows = view.sizes.flatMap((size) => {
      const of = (id) => runs.get(`${view.id} ${size} ${id}`);
      return view.cases.map(({ id, label }) => {
        const [rate, cpu] = ['rate', 'cpu'].map((figure) => median(of(id).map((r) => r[figure])));
        const speeds = baselines.map(([base]) => ratio(of(id).map((r, round) => r.rate / of(base)[round].rate)));
        return [formatSize(size), label, rate.toFixed(0), (1e6 / rate).toFixed(1), cpu.toFixed(1), ...speeds];
      });
    });
    console.log(markdown([...head, ...baselines.map(([, name]) => `msgs/s ÷ ${name}`)], (i) => i !== 1, rows));
  }
}

if (childTask) child(childTask).catch(fail);
else main();
