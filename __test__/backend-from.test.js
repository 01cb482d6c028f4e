'use strict';

// `backendFrom`: what each tier says serves which sizes, and, for index.js on the addon, that it hands the
// addon exactly those sizes and no others (every addon entry counted, results checked against the loop).

const assert = require('node:assert');
const crypto = require('node:crypto');
const { describe, it } = require('node:test');

const { NATIVE_FROM, WASM_FROM } = require('../lib/thresholds');
const reference = require('./helpers/reference');

// Every entry of the addon that the package may call, counted: the addon's exports are wrapped as Node
// loads the file, before lib/native.js and index.js take them.
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
    return require('../lib/native');
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

const tiers = {
  'index.js': index,
  'portable.js': require('../portable.js'),
  'lib/fallback.js': require('../lib/fallback'),
  ...(native !== undefined && { 'lib/native.js': native }),
};

describe('backendFrom', () => {
  for (const [name, tier] of Object.entries(tiers)) {
    it(`${name}: frozen, both operations, sizes from 0 up, its backend last`, () => {
      const { backendFrom, backend } = tier;
      assert.ok(Object.isFrozen(backendFrom));
      assert.deepStrictEqual(Object.keys(backendFrom), ['mask', 'unmask']);
      for (const operation of ['mask', 'unmask']) {
        const sizes = backendFrom[operation];
        assert.ok(Object.isFrozen(sizes), operation);
        const entries = Object.entries(sizes);
        assert.strictEqual(entries[0][1], 0, `${operation}: some backend serves 0 bytes`);
        assert.strictEqual(entries.at(-1)[0], backend, `${operation}: the largest sizes go to ${backend}`);
        for (let i = 1; i < entries.length; i++) assert.ok(entries[i][1] > entries[i - 1][1], `${operation}: ascending`);
      }
    });
  }

  it('gives the thresholds each tier switches at', () => {
    assert.deepStrictEqual(tiers['lib/fallback.js'].backendFrom, { mask: { js: 0 }, unmask: { js: 0 } });
    const portable = tiers['portable.js'];
    if (portable.backend === 'wasm') {
      assert.deepStrictEqual(portable.backendFrom, {
        mask: { js: 0, wasm: WASM_FROM.mask },
        unmask: { js: 0, wasm: WASM_FROM.unmask },
      });
    }
    if (native !== undefined) {
      assert.deepStrictEqual(native.backendFrom, { mask: { [native.backend]: 0 }, unmask: { [native.backend]: 0 } });
    }
    if (!onAddon) {
      assert.deepStrictEqual(index.backendFrom, tiers[index.backend === 'wasm' ? 'portable.js' : 'lib/fallback.js'].backendFrom);
      return;
    }
    const level = native.backend;
    assert.deepStrictEqual(index.backendFrom, {
      mask: { js: 0, [level]: NATIVE_FROM.mask },
      unmask: { js: 0, [level]: NATIVE_FROM.unmask },
    });
  });

  describe('index.js hands the addon exactly the sizes it names', {
    skip: !onAddon && 'index.js is not on the addon here',
  }, () => {
    const level = index.backend;
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
      const from = index.backendFrom.mask[level];
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
      const from = index.backendFrom.unmask[level];
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
});

describe('short payloads', () => {
  it('stay below the size where the JavaScript loop builds word views, on every runtime and tier', () => {
    // lib/loops.js writes only by element stores below WORDS_FROM: the default tier's promise for the
    // JavaScript it runs itself rests on every threshold being under it.
    const { WORDS_FROM } = require('../lib/loops');
    const source = require('node:fs').readFileSync(require.resolve('../lib/thresholds'), 'utf8');
    const sizes = [...source.matchAll(/(?:mask|unmask): (\d+)/g)].map(([, size]) => Number(size));
    assert.ok(sizes.length >= 16, `read ${sizes.length} thresholds`);
    for (const size of sizes) assert.ok(size < WORDS_FROM, `threshold ${size} >= ${WORDS_FROM}`);
  });
});
