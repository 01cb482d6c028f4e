'use strict';

// A ws echo app, as bundled by __test__/integration/bundlers.js: a server and a client on 127.0.0.1 exchange
// binary messages on both sides of ws's sizes for a library (mask from 48 B, unmask from 32 B), every byte
// checked. Prints one JSON line: the backend of the bufferutil this bundle holds (the module ws requires,
// by the same name), and how often ws called it.

const crypto = require('crypto');
const http = require('http');
const bufferUtil = require('bufferutil');
const { count } = require('./count-calls');
const { echoPair } = require('./echo');

const SIZES = [0, 1, 31, 32, 47, 48, 125, 126, 1000, 65536 + 3];

const calls = count(bufferUtil);

async function main() {
  const echo = await echoPair(require('ws'));
  const expected = { mask: 0, unmask: 0 };
  for (const size of SIZES) {
    const sent = crypto.randomBytes(size);
    echo.send(sent, true);
    const { data } = await echo.next();
    if (!sent.equals(data)) throw new Error(`the echo of ${size} bytes differs`);
    if (size >= 48) expected.mask++;
    if (size >= 32) expected.unmask++;
  }
  await echo.close();
  const usesCore = typeof http.websocketMask === 'function';
  console.log(
    JSON.stringify({
      app: 'ws',
      backend: bufferUtil.backend,
      calls,
      expected: usesCore ? { mask: 0, unmask: 0 } : expected,
      usesCore,
    })
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
