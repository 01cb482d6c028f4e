'use strict';

// Where short payloads stay in JavaScript: index.js on the addon hands it exactly the sizes from
// lib/thresholds.js's on and no others (every addon entry counted, results checked against the loop).

const assert = require('node:assert');
const crypto = require('node:crypto');
const { it } = require('node:test');

const { NATIVE_FROM, THRESHOLDS } = require('../lib/thresholds');
const reference = require('./helpers/reference');

// Every entry of the addon that the package may call, counted: the addon's exports are wrapped as Node
// loads the file, before lib/tiers/native.js and index.js take them.
const ENTRIES = ['mask', 'unmask', 'maskBlock', 'unmaskBlock'];
let addonCalls = 0;

/** The addon's tier with its entries counted, or undefined where it does not load. */
function loadNative() {
  const extensions = require('node:module')._extensions;
  const loadAddon = extensions['.node'];
  extensions['.node'] = function counting(module, filename) {
    loadAddon.call(this, module, filename);
    const addon = module.exports;
    for (const name of ENTRIES) {
      const entry = addon[name];
      addon[name] = function counted(...args) {
        addonCalls++;
        return entry.apply(this, args);
      };
    }
  };
  try {
    return require('../lib/tiers/native');
  } catch {
    return undefined;
  } finally {
    extensions['.node'] = loadAddon;
  }
}

const native = loadNative();
const index = require('..');
// BUFFERUTIL_SIMD_LEVEL=wasm or js keeps index.js off the addon, which still loads here on its own.
const onAddon = native !== undefined && index.backend === native.backend;

it('index.js hands the addon exactly the sizes lib/thresholds.js names: mask into another buffer, in place and unmask', {
  skip: !onAddon && 'index.js is not on the addon here',
}, () => {
  const key = Buffer.from('6db6b280', 'hex');
  for (const [op, from, call] of [
    ['mask', NATIVE_FROM.mask, (source, output) => index.mask(source, key, output, 6, source.length)],
    ['mask in place', NATIVE_FROM.unmask, (buffer) => index.mask(buffer, key, buffer, 0, buffer.length)],
    ['unmask', NATIVE_FROM.unmask, (buffer) => index.unmask(buffer, key)],
  ]) {
    for (const size of [from - 2, from - 1, from, from + 1, 4 * from]) {
      const source = crypto.randomBytes(size);
      const output = op === 'mask' ? crypto.randomBytes(size + 6) : source;
      // What the reference loop makes of `output`; the addon is called once from the threshold on.
      const expected = Buffer.from(reference.masked(source, key, output, op === 'mask' ? 6 : 0, size));
      const before = addonCalls;
      call(source, output);
      assert.deepStrictEqual(output, expected, `${op} ${size} B`);
      assert.strictEqual(addonCalls - before, size < from ? 0 : 1, `${op} ${size} B`);
    }
  }
});

it('short payloads stay below the size where the JavaScript loop builds word views, on every runtime and tier', () => {
  // lib/loops.js writes only by element stores below WORDS_FROM: the default tier's promise for the
  // JavaScript it runs itself rests on every threshold being under it.
  const { WORDS_FROM } = require('../lib/loops');
  const sizes = Object.values(THRESHOLDS).flatMap((tier) => Object.values(tier).flatMap(Object.values));
  assert.ok(sizes.length >= 12, `read ${sizes.length} thresholds`);
  for (const size of sizes) assert.ok(size > 0 && size < WORDS_FROM, `threshold ${size} not in 1..${WORDS_FROM - 1}`);
});
