'use strict';

// A ws echo app, as bundled by __test__/integration/bundlers.js: binary messages on both sides of ws's sizes for a
// library (mask from 48 B, unmask from 32 B), through the bufferutil ws requires by the same name.

const http = require('http');
const { echoAll } = require('./count-calls');
const { WebSocket, WebSocketServer } = require('ws');

const SIZES = [0, 1, 31, 32, 47, 48, 125, 126, 1000, 65536 + 3];
// Where Node has http.websocketMask, ws calls it and never bufferutil.
const from = (bytes) => (typeof http.websocketMask === 'function' ? 0 : SIZES.filter((size) => size >= bytes).length);

echoAll(SIZES, { mask: from(48), unmask: from(32) }, async () => {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  server.on('connection', (socket) => socket.on('message', (data) => socket.send(data)));
  const client = new WebSocket(`ws://127.0.0.1:${server.address().port}`);
  await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject));
  return (sent) => new Promise((resolve) => client.once('message', resolve).send(sent));
});
