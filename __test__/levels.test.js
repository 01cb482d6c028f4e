'use strict';

// BUFFERUTIL_SIMD_LEVEL, read once at load: capped to each level this CPU has below its best, then `wasm`
// and `js`, index.js must run at that level and agree with the byte loop (a differential run in a child per
// level; differential.test.js runs the addon at every level at length, mask.test.js every tier in full).
// Then which names are taken, and that every entry honours the variable.

const assert = require('node:assert');
const { execFileSync, spawnSync } = require('node:child_process');
const path = require('node:path');
const { it } = require('node:test');

const root = path.join(__dirname, '..');

function backendWith(level) {
  const env = { ...process.env, BUFFERUTIL_SIMD_LEVEL: level };
  const script = "process.stdout.write(require('./lib/tiers/native').backend)";
  return execFileSync(process.execPath, ['-e', script], { cwd: root, env, encoding: 'utf8' });
}

const best = backendWith('');
const capped = ['avx2', 'sse2', 'neon', 'scalar'].filter((level) => level !== best && backendWith(level) === level);

for (const level of [...capped, 'wasm', 'js']) {
  it(`BUFFERUTIL_SIMD_LEVEL=${level}: index.js runs at that level and agrees with the byte loop`, () => {
    const env = { ...process.env, BUFFERUTIL_SIMD_LEVEL: level };
    const script = `
      const index = require('.');
      const { runDifferential } = require('./__test__/helpers/differential');
      const counts = runDifferential(index, { count: 20000, seed: 11 });
      process.stdout.write(JSON.stringify({ backend: index.backend, calls: Object.values(counts).reduce((a, b) => a + b, 0) }));`;
    const { backend, calls } = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: root, env, encoding: 'utf8' }));
    assert.strictEqual(backend, level);
    assert.strictEqual(calls, 20000);
  });
}

it('caps below the best level on this CPU where there is one', () => {
  if (best === 'scalar') return;
  assert.ok(capped.includes('scalar'), `capped levels: ${capped}`);
});

/** `script`'s stdout and the warnings it printed, in a child with BUFFERUTIL_SIMD_LEVEL=`level`. */
function childWith(level, args) {
  const env = { ...process.env, BUFFERUTIL_SIMD_LEVEL: level };
  delete env.NODE_OPTIONS;
  const run = spawnSync(process.execPath, args, { cwd: root, env, encoding: 'utf8' });
  assert.strictEqual(run.status, 0, run.stderr);
  return { out: run.stdout, warnings: run.stderr.split('\n').filter((line) => line.includes('Warning')) };
}

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
