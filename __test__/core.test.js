'use strict';

// index.js hands mid-size calls to Node's built-in masking (http.websocketMask, Node 26+) where that is
// faster. Here a counting stand-in takes its place, on any Node, to check which calls go to it.

const assert = require('node:assert');
const http = require('node:http');
const path = require('node:path');
const { it } = require('node:test');

const reference = require('../fallback');

function loadIndexWith(core, level) {
  const saved = { websocketMask: http.websocketMask, websocketUnmask: http.websocketUnmask };
  const savedLevel = process.env.BUFFERUTIL_SIMD_LEVEL;
  Object.assign(http, core);
  if (level === undefined) delete process.env.BUFFERUTIL_SIMD_LEVEL;
  else process.env.BUFFERUTIL_SIMD_LEVEL = level;
  const id = require.resolve(path.join(__dirname, '..'));
  delete require.cache[id];
  try {
    return require(id);
  } finally {
    delete require.cache[id];
    Object.assign(http, saved);
    if (savedLevel === undefined) delete process.env.BUFFERUTIL_SIMD_LEVEL;
    else process.env.BUFFERUTIL_SIMD_LEVEL = savedLevel;
  }
}

function countingCore() {
  const calls = { mask: 0, unmask: 0 };
  const core = {
    websocketMask(...args) {
      calls.mask++;
      reference.mask(...args);
    },
    websocketUnmask(...args) {
      calls.unmask++;
      reference.unmask(...args);
    }
  };
  return { core, calls };
}

const key = Buffer.from([1, 2, 3, 4]);

it('sends valid mid-size calls with a 4-byte key to Node core, and nothing else', () => {
  const { core, calls } = countingCore();
  const index = loadIndexWith(core);
  const data = Buffer.alloc(1000, 7);
  const output = Buffer.alloc(1006);
  index.mask(data, key, output, 6, 1000); // distinct buffers
  index.mask(data, key, data, 0, 1000); // in place
  index.unmask(data, key);
  assert.deepStrictEqual(calls, { mask: 2, unmask: 1 });

  index.mask(data, key, output, 6, 16); // small: JS
  index.mask(Buffer.alloc(1 << 16), key, Buffer.alloc(1 << 16), 0, 1 << 16); // large: the addon
  index.mask(data, Buffer.from([1, 2, 3, 4, 5]), output, 6, 1000); // 5-byte key: core would refuse it
  index.mask(data, [1, 2, 3, 4], output, 6, 1000); // array key
  index.mask(data, key, data, 1, 999); // output inside the source: only the forward loop is right
  index.mask(data.subarray(0, 500), key, data, 500, 500); // same buffer, apart: not proven for core
  index.mask(new DataView(data.buffer, data.byteOffset, 1000), key, output, 6, 1000); // not bytes
  assert.throws(() => index.mask(data, key, output, 7, 1000), { code: 'ERR_OUT_OF_RANGE' }); // ours
  index.unmask(Buffer.alloc(1 << 16), key);
  index.unmask(data, [1, 2, 3, 4]);
  assert.deepStrictEqual(calls, { mask: 2, unmask: 1 });
});

it('leaves Node core alone when a level is requested', () => {
  const { core, calls } = countingCore();
  const index = loadIndexWith(core, 'scalar');
  const data = Buffer.alloc(1000, 7);
  index.mask(data, key, data, 0, 1000);
  index.unmask(data, key);
  assert.deepStrictEqual(calls, { mask: 0, unmask: 0 });
});
