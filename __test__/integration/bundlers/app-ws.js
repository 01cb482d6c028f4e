'use strict';

// A ws echo app, as bundled by __test__/integration/bundlers.js: a server and a client on 127.0.0.1 exchange
// binary messages on both sides of ws's sizes for a library (mask from 48 B, unmask from 32 B), every byte
// checked. Prints one JSON line: the backend of the bufferutil this bundle holds (the module ws requires,
// by the same name), and how often ws called it.

const crypto = require('crypto');
const http = require('http');
const bufferUtil = require('bufferutil');
const { count } = require('./count-calls');
const { WebSocket, WebSocketServer } = require('ws');

const SIZES = [0, 1, 31, 32, 47, 48, 125, 126, 1000, 65536 + 3];

const calls = count(bufferUtil);

async function main() {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  server.on('connection', (socket) => socket.on('message', (data) => socket.send(data)));
  const client = new WebSocket(`ws://127.0.0.1:${server.address().port}`);
  await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject));
  const expected = { mask: 0, unmask: 0 };
  for (const size of SIZES) {
    const sent = crypto.randomBytes(size);
    client.send(sent);
    const data = await new Promise((resolve) => client.once('message', resolve));
    if (!sent.equals(data)) throw new Error(`the echo of ${size} bytes differs`);
    if (size >= 48) expected.mask++;
    if (size >= 32) expected.unmask++;
  }
  client.terminate();
  await new Promise((resolve) => server.close(resolve));
  // Where Node has http.websocketMask, ws calls it and never bufferutil.
  if (typeof http.websocketMask === 'function') Object.assign(expected, { mask: 0, unmask: 0 });
  console.log(JSON.stringify({ app: 'ws', backend: bufferUtil.backend, calls, expected }));
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
