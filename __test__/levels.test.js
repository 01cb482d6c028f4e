'use strict';

// BUFFERUTIL_SIMD_LEVEL, read once at load: which names are taken, and that every entry honours the variable.
// Each level it selects, against the byte loop: differential.test.js.

const assert = require('node:assert');
const { it } = require('node:test');
const { spawnNode } = require('./helpers/child');

const BACKEND = "process.stdout.write(require('.').backend)";
const IMPORT = (entry) => `import('./${entry}').then((m) => process.stdout.write(m.backend))`;

/** `script`'s stdout and the warnings it printed, in a child with BUFFERUTIL_SIMD_LEVEL=`level`. */
function childWith(level, script, args = []) {
  const run = spawnNode(script, { args, env: { BUFFERUTIL_SIMD_LEVEL: level } });
  assert.strictEqual(run.status, 0, run.stderr);
  return { out: run.stdout, warnings: run.stderr.split('\n').filter((line) => line.includes('Warning')) };
}

const best = childWith('', "process.stdout.write(require('./lib/tiers/native').backend)").out;

it('one list says which names are taken and which are warned about and ignored, addon or not', () => {
  const { NAMES } = require('../lib/level');
  for (const level of [...NAMES, 'SSE2 ']) {
    assert.deepStrictEqual(childWith(level, BACKEND).warnings, [], `BUFFERUTIL_SIMD_LEVEL=${level}`);
  }
  for (const [args, tier] of [
    [[], best],
    [['--no-addons'], 'wasm'],
  ]) {
    for (const level of ['simd128', 'avx', 'fast']) {
      const { out, warnings } = childWith(level, BACKEND, args);
      assert.strictEqual(out, tier, `BUFFERUTIL_SIMD_LEVEL=${level} ${args} is ignored`);
      assert.strictEqual(warnings.length, 1, `BUFFERUTIL_SIMD_LEVEL=${level} ${args} is warned about`);
      assert.match(warnings[0], new RegExp(`BUFFERUTIL_SIMD_LEVEL=${level} is not one of ${NAMES.join(', ')}; ignored`));
    }
  }
});

it('every entry, require or import, addons on or off, honours js and wasm', () => {
  const entries = {
    'import(index.mjs)': [IMPORT('index.mjs'), ['--input-type=module']],
    'require(portable.js)': ["process.stdout.write(require('./portable.js').backend)"],
    'import(portable.mjs), no addons': [IMPORT('portable.mjs'), ['--no-addons', '--input-type=module']],
    'require(index.js), no addons': [BACKEND, ['--no-addons']],
  };
  for (const level of ['js', 'wasm']) {
    for (const [entry, [script, args]] of Object.entries(entries)) {
      assert.strictEqual(childWith(level, script, args).out, level, `${entry} with BUFFERUTIL_SIMD_LEVEL=${level}`);
    }
  }
});
