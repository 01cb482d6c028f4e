'use strict';

// A WebSocket-Node (`websocket`) echo app, as bundled by __test__/integration/bundlers.js: WebSocket-Node requires
// bufferutil unconditionally and calls it for every masked frame, on every Node.

const http = require('http');
const { echoAll } = require('./count-calls');
const { server: WebSocketServer, client: WebSocketClient } = require('websocket');

const SIZES = [1, 31, 32, 48, 125, 126, 1000, 65536 + 3];
// One frame per message, so that each message is one mask and one unmask.
const CONFIG = { fragmentOutgoingMessages: false, maxReceivedFrameSize: 1 << 20, maxReceivedMessageSize: 1 << 20 };

echoAll(SIZES, { mask: SIZES.length, unmask: SIZES.length }, async () => {
  const httpServer = http.createServer();
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const server = new WebSocketServer({ httpServer, autoAcceptConnections: false, ...CONFIG });
  server.on('request', (request) => {
    const connection = request.accept(null, request.origin);
    connection.on('message', (message) => connection.sendBytes(message.binaryData));
  });
  const client = new WebSocketClient(CONFIG);
  const connection = await new Promise((resolve, reject) => {
    client.once('connect', resolve).once('connectFailed', reject);
    client.connect(`ws://127.0.0.1:${httpServer.address().port}/`);
  });
  return (sent) => new Promise((resolve) => connection.once('message', ({ binaryData }) => resolve(binaryData)).sendBytes(sent));
});
