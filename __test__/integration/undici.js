'use strict';

// undici's WebSocket client and websocket-driver's Hybi with their masking loops routed through this package
// by __test__/helpers/masking-patches.js (exact text match, or the test fails), as undici PR #3273 did with
// `ws-masking`; installed from the npm registry beside this package's release tarballs (as an optional dependency
// would bring it), then an echo through a ws server on 127.0.0.1 of every size where the frame header changes,
// byte for byte, with every call into the package recorded.
//
// undici (lib/web/websocket/sender.js): `send(string)` while the send queue is idle masks a fresh buffer in place
// (`createFastTextFrame`, patched: `unmask(buffer, key)`); views, Blobs, anything sent while the queue runs (strings
// included), close, ping and pong go through `createFrame`, masking into the frame after the header at offset 6, 8
// or 14 (patched: `mask(data, key, frame, offset, length)`). The key is undici's Array of 4 numbers in both
// (bufferutil 4.1.0 aborts the process on it).

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { createRequire } = require('node:module');
const { WebSocketServer } = require('ws');
const { rootManifest, packRelease, tempDir, userProject, npmInstall } = require('../../scripts/lib/packages');
const { startRegistry } = require('../../scripts/lib/registry');
const { MASKER_FROM, WEBSOCKET_DRIVER, undiciPin, patchUndici, patchWebsocketDriver } = require('../helpers/masking-patches');

const MiB = 1024 * 1024;
// 7-bit, 16-bit and 64-bit payload lengths each side of every boundary, both sides of the patch's
// threshold, and one large odd size.
const SIZES = [0, 1, MASKER_FROM - 1, MASKER_FROM, MASKER_FROM + 1, 125, 126, 127, 65535, 65536, MiB + 3];
const UNDICI = undiciPin();
const TEST_TIMEOUT = 30_000;

/** `byteLength` bytes of random UTF-8: random code points of 1 to 4 bytes, ASCII to fill the end exactly. */
function randomText(byteLength) {
  let text = '';
  let left = byteLength;
  const picks = [
    [1, 0x20, 0x7f],
    [2, 0x80, 0x800],
    [3, 0x800, 0xd800],
    [4, 0x10000, 0x110000],
  ];
  while (left > 0) {
    const [bytes, from, to] = picks[crypto.randomInt(picks.length)];
    if (bytes > left) {
      text += String.fromCharCode(crypto.randomInt(0x20, 0x7f));
      left -= 1;
    } else {
      text += String.fromCodePoint(crypto.randomInt(from, to));
      left -= bytes;
    }
  }
  return text;
}

/** A queue of what `subscribe(push)` delivers, read with `next()`. */
function inbox(subscribe) {
  const items = [];
  let waiting = null;
  subscribe((item) => {
    items.push(item);
    waiting?.();
  });
  return () =>
    items.length
      ? Promise.resolve(items.shift())
      : new Promise((resolve) => (waiting = () => ((waiting = null), resolve(items.shift()))));
}

let work;
let registry;
let project;
let installOutput;
let publishedFrame;

before(
  async () => {
    delete process.env.BUFFERUTIL_SIMD_LEVEL;
    work = tempDir('bufferutil-simd-undici-');
    const release = packRelease(work);
    registry = await startRegistry([release.main, ...Object.values(release.platforms)]);
    project = userProject(work, 'undici-user');
    installOutput = await npmInstall(project, registry.url, [
      `undici@${UNDICI}`,
      `websocket-driver@${WEBSOCKET_DRIVER}`,
      rootManifest.name,
    ]);
    publishedFrame = fs.readFileSync(path.join(project, 'node_modules', 'undici', 'lib', 'web', 'websocket', 'frame.js'), 'utf8');
    patchUndici(path.join(project, 'node_modules', 'undici'));
    patchWebsocketDriver(path.join(project, 'node_modules', 'websocket-driver'));
  },
  { timeout: 120_000 }
);

after(async () => {
  await registry?.close();
  if (work && !process.env.KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

const manifestAt = (relative) => JSON.parse(fs.readFileSync(path.join(project, relative, 'package.json'), 'utf8'));

/**
 * This package as the patched files get it (the same module object: they look `mask` / `unmask` up on it
 * at each call), with every call recorded: which function, the length, the output offset, the key's kind.
 */
function recordedPackage() {
  const userRequire = createRequire(path.join(project, 'index.js'));
  const masker = userRequire(rootManifest.name);
  assert.ok(!['wasm', 'js'].includes(masker.backend), `bufferutil-simd loaded without its addon (backend ${masker.backend})`);
  const calls = [];
  const { mask, unmask } = masker;
  const kind = (key) => (Array.isArray(key) ? 'array' : Object.prototype.toString.call(key).slice(8, -1));
  masker.mask = function recordedMask(source, key, output, offset, length) {
    calls.push({ fn: 'mask', length, offset, key: kind(key) });
    return mask.call(this, source, key, output, offset, length);
  };
  masker.unmask = function recordedUnmask(buffer, key) {
    calls.push({ fn: 'unmask', length: buffer.length, key: kind(key) });
    return unmask.call(this, buffer, key);
  };
  const restore = () => Object.assign(masker, { mask, unmask });
  return { userRequire, masker, calls, restore };
}

/** A ws server on 127.0.0.1 sending back each message as it came (text as text); resolves to it and its URL. */
async function echoServer() {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise((resolve) => server.once('listening', resolve));
  server.on('connection', (socket) => socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary })));
  return {
    server,
    url: `ws://127.0.0.1:${server.address().port}/`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

// The header offset undici and websocket-driver mask a client frame's payload at (RFC 6455 §5.2).
const headerOffset = (size) => (size > 65535 ? 14 : size > 125 ? 8 : 6);

/** Sends each size as binary and as text through `send`, checking each echo byte for byte. */
async function echoEverySize(send, nextReply) {
  for (const size of SIZES) {
    for (const binary of [true, false]) {
      const sent = binary ? crypto.randomBytes(size) : randomText(size);
      assert.equal(Buffer.byteLength(sent), size);
      send(sent, binary);
      const reply = await nextReply();
      const what = `${binary ? 'binary' : 'text'} message of ${size} bytes`;
      assert.equal(typeof reply === 'string', !binary, `${what}: came back as ${typeof reply}`);
      assert.ok(
        (binary ? sent : Buffer.from(sent, 'utf8')).equals(binary ? reply : Buffer.from(reply, 'utf8')),
        `${what}: bytes differ`
      );
    }
  }
}

test(`npm installs undici ${UNDICI}, websocket-driver ${WEBSOCKET_DRIVER} and bufferutil-simd side by side; the patches took`, () => {
  const output = installOutput.stdout + installOutput.stderr;
  assert.doesNotMatch(output, /ERESOLVE|peer|conflict|invalid/i, output);
  assert.equal(manifestAt('node_modules/undici').version, UNDICI);
  assert.equal(manifestAt('node_modules/websocket-driver').version, WEBSOCKET_DRIVER);
  assert.equal(manifestAt(`node_modules/${rootManifest.name}`).version, rootManifest.version);
  // The patched files find the package from where they are, as an optional dependency's require would.
  for (const file of [
    'node_modules/undici/lib/web/websocket/frame.js',
    'node_modules/websocket-driver/lib/websocket/driver/hybi.js',
  ]) {
    const full = path.join(project, file);
    assert.match(fs.readFileSync(full, 'utf8'), /masker = require\("bufferutil-simd"\)/, file);
    assert.equal(
      createRequire(full).resolve(rootManifest.name),
      path.join(project, 'node_modules', rootManifest.name, 'index.js')
    );
  }
});

test('the patches fail loudly on source text they were not written for', () => {
  // Applied twice: the marker is found.
  assert.throws(() => patchUndici(path.join(project, 'node_modules', 'undici')), /already patched/);
  assert.throws(() => patchWebsocketDriver(path.join(project, 'node_modules', 'websocket-driver')), /already patched/);
  // A release whose loop reads differently (here `% 4` for `& 3`): no match, no silent half patch.
  const moved = path.join(work, 'undici-moved');
  const frame = path.join(moved, 'lib', 'web', 'websocket', 'frame.js');
  fs.mkdirSync(path.dirname(frame), { recursive: true });
  const changed = publishedFrame.replace('frameData[i] ^ maskKey[i & 3]', 'frameData[i] ^ maskKey[i % 4]');
  assert.notEqual(changed, publishedFrame);
  fs.writeFileSync(frame, changed);
  assert.throws(
    () => patchUndici(moved),
    /expected exactly one occurrence of\n {4}for \(let i = 0; i < bodyLength; \+\+i\) \{\n {6}buffer\[offset \+ i\] = frameData/
  );
  assert.equal(fs.readFileSync(frame, 'utf8'), changed, 'the file was written although the patch failed');
});

test(`undici ${UNDICI} WebSocket: every size, binary (createFrame) and text (createFastTextFrame), masked through bufferutil-simd from ${MASKER_FROM} B`, {
  timeout: TEST_TIMEOUT,
}, async (t) => {
  const { userRequire, masker, calls, restore } = recordedPackage();
  const { WebSocket } = userRequire('undici');
  t.diagnostic(`Node ${process.version}, undici ${UNDICI}, bufferutil-simd backend ${masker.backend}`);
  const echo = await echoServer();
  const client = new WebSocket(echo.url);
  client.binaryType = 'arraybuffer';
  const nextReply = inbox((push) =>
    client.addEventListener('message', ({ data }) => push(typeof data === 'string' ? data : Buffer.from(data)))
  );
  let recorded;
  try {
    await new Promise((resolve, reject) => {
      client.addEventListener('open', resolve, { once: true });
      client.addEventListener('error', ({ error }) => reject(error ?? new Error('undici WebSocket error')), { once: true });
    });
    await echoEverySize(
      (data, binary) => client.send(binary ? new Uint8Array(data.buffer, data.byteOffset, data.length) : data),
      nextReply
    );

    // A string sent while a Blob is queued takes createFrame (text opcode); so does the Blob.
    const blob = crypto.randomBytes(1000);
    const queuedText = randomText(200);
    const shortText = randomText(MASKER_FROM - 1);
    const { Blob } = require('node:buffer');
    client.send(new Blob([blob]));
    client.send(queuedText);
    client.send(shortText);
    assert.ok(blob.equals(Buffer.from(await nextReply())), 'Blob echo differs');
    assert.equal(await nextReply(), queuedText);
    assert.equal(await nextReply(), shortText);
    recorded = [...calls];
  } finally {
    restore();
    const closed = new Promise((resolve) => client.addEventListener('close', resolve, { once: true }));
    client.close();
    await closed;
    await echo.close();
  }

  // Exactly one call per frame from the threshold on, none below it, in order; the key as undici has it.
  const expected = [];
  for (const size of SIZES.filter((n) => n >= MASKER_FROM)) {
    expected.push({ fn: 'mask', length: size, offset: headerOffset(size), key: 'array' });
    expected.push({ fn: 'unmask', length: size, key: 'array' });
  }
  // The queued string's frame is built when it is sent, the Blob's once its bytes are read (both go out in
  // the order sent).
  expected.push({ fn: 'mask', length: 200, offset: 8, key: 'array' }, { fn: 'mask', length: 1000, offset: 8, key: 'array' });
  assert.deepEqual(recorded, expected);
});

test(`websocket-driver ${WEBSOCKET_DRIVER} Hybi client: every size masked in place through bufferutil-simd from ${MASKER_FROM} B`, {
  timeout: TEST_TIMEOUT,
}, async (t) => {
  const { userRequire, masker, calls, restore } = recordedPackage();
  const driverModule = userRequire('websocket-driver');
  t.diagnostic(`Node ${process.version}, websocket-driver ${WEBSOCKET_DRIVER}, bufferutil-simd backend ${masker.backend}`);
  const echo = await echoServer();
  const driver = driverModule.client(echo.url);
  const socket = net.connect(echo.server.address().port, '127.0.0.1');
  socket.pipe(driver.io).pipe(socket);
  const nextReply = inbox((push) => driver.on('message', ({ data }) => push(data)));
  let recorded;
  try {
    await new Promise((resolve, reject) => {
      driver.once('open', resolve);
      driver.once('error', reject);
      socket.once('error', reject);
      socket.once('connect', () => driver.start());
    });
    await echoEverySize((data, binary) => (binary ? driver.binary(data) : driver.text(data)), nextReply);
    recorded = [...calls];
  } finally {
    restore();
    socket.destroy();
    await echo.close();
  }
  // Each frame's payload in place, at its header offset, the key a Buffer; the echoes are not masked.
  const expected = SIZES.filter((n) => n >= MASKER_FROM).flatMap((size) => [
    { fn: 'unmask', length: size, key: 'Uint8Array' },
    { fn: 'unmask', length: size, key: 'Uint8Array' },
  ]);
  assert.deepEqual(recorded, expected);
});
