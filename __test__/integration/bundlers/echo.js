'use strict';

// A ws echo pair on 127.0.0.1, for the ws drop-in test (../ws.js) and the bundled ws app (app-ws.js): the
// server sends back what it gets, so the client's masks, the server's unmasks and the way back are all
// checked byte for byte.

/** A connected `{ send(data, binary), next(), close() }`; `next` resolves to the next `{ data, isBinary }` echoed. */
async function echoPair({ WebSocket, WebSocketServer }) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  server.on('connection', (socket) => socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary })));
  const client = new WebSocket(`ws://127.0.0.1:${server.address().port}`);
  await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject));
  const replies = [];
  let waiting = null;
  client.on('message', (data, isBinary) => {
    replies.push({ data, isBinary });
    if (waiting) waiting();
  });
  return {
    send: (data, binary) => client.send(data, { binary }),
    next: () =>
      replies.length
        ? Promise.resolve(replies.shift())
        : new Promise((resolve) => (waiting = () => ((waiting = null), resolve(replies.shift())))),
    close: async () => {
      client.terminate();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

module.exports = { echoPair };
