'use strict';

// BUFFERUTIL_SIMD_LEVEL, read once at load: which names are taken, and that every entry honours the variable.
// Each level it selects, against the byte loop: differential.test.js.

const assert = require('node:assert');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { it } = require('node:test');

const root = path.join(__dirname, '..');

/** `script`'s stdout and the warnings it printed, in a child with BUFFERUTIL_SIMD_LEVEL=`level`. */
function childWith(level, args) {
  const env = { ...process.env, BUFFERUTIL_SIMD_LEVEL: level };
  delete env.NODE_OPTIONS;
  const run = spawnSync(process.execPath, args, { cwd: root, env, encoding: 'utf8' });
  assert.strictEqual(run.status, 0, run.stderr);
  return { out: run.stdout, warnings: run.stderr.split('\n').filter((line) => line.includes('Warning')) };
}

const best = childWith('', ['-e', "process.stdout.write(require('./lib/tiers/native').backend)"]).out;

it('one list says which names are taken and which are warned about and ignored, addon or not', () => {
  const { NAMES } = require('../lib/level');
  const script = "process.stdout.write(require('.').backend)";
  for (const level of [...NAMES, 'SSE2 ']) {
    assert.deepStrictEqual(childWith(level, ['-e', script]).warnings, [], `BUFFERUTIL_SIMD_LEVEL=${level}`);
  }
  for (const [args, tier] of [
    [[], best],
    [['--no-addons'], 'wasm'],
  ]) {
    for (const level of ['simd128', 'avx', 'fast']) {
      const { out, warnings } = childWith(level, [...args, '-e', script]);
      assert.strictEqual(out, tier, `BUFFERUTIL_SIMD_LEVEL=${level} ${args} is ignored`);
      assert.strictEqual(warnings.length, 1, `BUFFERUTIL_SIMD_LEVEL=${level} ${args} is warned about`);
      assert.match(warnings[0], new RegExp(`BUFFERUTIL_SIMD_LEVEL=${level} is not one of ${NAMES.join(', ')}; ignored`));
    }
  }
});

it('every entry, require or import, addons on or off, honours js and wasm', () => {
  const entries = {
    'require(index.js)': ['-p', "require('.').backend"],
    'import(index.mjs)': ['--input-type=module', '-e', "import('./index.mjs').then((m) => console.log(m.backend))"],
    'require(portable.js)': ['-p', "require('./portable.js').backend"],
    'import(portable.mjs), no addons': [
      '--no-addons',
      '--input-type=module',
      '-e',
      "import('./portable.mjs').then((m) => console.log(m.backend))",
    ],
    'require(index.js), no addons': ['--no-addons', '-p', "require('.').backend"],
  };
  for (const level of ['js', 'wasm']) {
    for (const [entry, args] of Object.entries(entries)) {
      assert.strictEqual(childWith(level, args).out.trim(), level, `${entry} with BUFFERUTIL_SIMD_LEVEL=${level}`);
    }
  }
});
