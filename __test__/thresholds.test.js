'use strict';

// Where short payloads stay in JavaScript: index.js on the addon hands it exactly the sizes from
// lib/thresholds.js's on and no others (every addon entry counted, results checked against the loop).

const assert = require('node:assert');
const crypto = require('node:crypto');
const { describe, it } = require('node:test');

const { NATIVE_FROM, THRESHOLDS } = require('../lib/thresholds');
const reference = require('./helpers/reference');

// Every entry of the addon that the package may call, counted: the addon's exports are wrapped as Node
// loads the file, before lib/tiers/native.js and index.js take them.
const ENTRIES = ['mask', 'unmask', 'maskBlock', 'unmaskBlock'];
const calls = Object.fromEntries(ENTRIES.map((name) => [name, 0]));

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
        calls[name]++;
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
const addonCalls = () => ENTRIES.reduce((sum, name) => sum + calls[name], 0);

describe('index.js hands the addon exactly the sizes lib/thresholds.js names', {
  skip: !onAddon && 'index.js is not on the addon here',
}, () => {
  const key = Buffer.from('6db6b280', 'hex');

  /** Addon calls made by `call()`, which must give `expected`'s bytes in `output`. */
  function countCalls(call, output, expected) {
    const before = addonCalls();
    call();
    assert.deepStrictEqual(output, expected);
    return addonCalls() - before;
  }

  /** A copy of `into` with `source` masked into it at `offset`, by the reference loop. */
  function masked(source, offset, into) {
    const out = Buffer.from(into);
    reference.mask(source, key, out, offset, source.length);
    return out;
  }

  it('mask into another buffer and in place', () => {
    const from = NATIVE_FROM.mask;
    for (const size of [from - 2, from - 1, from, from + 1, 4 * from]) {
      const source = crypto.randomBytes(size);
      const output = crypto.randomBytes(size + 6);
      const expected = masked(source, 6, output);
      const viaAddon = countCalls(() => index.mask(source, key, output, 6, size), output, expected);
      assert.strictEqual(viaAddon, size < from ? 0 : 1, `mask ${size} B`);
      const inPlace = Buffer.from(source);
      const inPlaceExpected = masked(source, 0, inPlace);
      const inPlaceViaAddon = countCalls(() => index.mask(inPlace, key, inPlace, 0, size), inPlace, inPlaceExpected);
      assert.strictEqual(inPlaceViaAddon, size < from ? 0 : 1, `mask in place ${size} B`);
    }
  });

  it('unmask', () => {
    const from = NATIVE_FROM.unmask;
    for (const size of [from - 2, from - 1, from, from + 1, 4 * from]) {
      const buffer = crypto.randomBytes(size);
      const expected = masked(Buffer.from(buffer), 0, buffer);
      assert.strictEqual(
        countCalls(() => index.unmask(buffer, key), buffer, expected),
        size < from ? 0 : 1,
        `unmask ${size} B`
      );
    }
  });
});

describe('short payloads', () => {
  it('stay below the size where the JavaScript loop builds word views, on every runtime and tier', () => {
    // lib/loops.js writes only by element stores below WORDS_FROM: the default tier's promise for the
    // JavaScript it runs itself rests on every threshold being under it.
    const { WORDS_FROM } = require('../lib/loops');
    const sizes = Object.values(THRESHOLDS).flatMap((tier) => Object.values(tier).flatMap(Object.values));
    assert.ok(sizes.length >= 12, `read ${sizes.length} thresholds`);
    for (const size of sizes) assert.ok(size > 0 && size < WORDS_FROM, `threshold ${size} not in 1..${WORDS_FROM - 1}`);
  });
});
