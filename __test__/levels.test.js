'use strict';

// Re-runs the conformance suite (mask.test.js) in a child process per BUFFERUTIL_SIMD_LEVEL, which is read
// once at load: capped to each level this CPU has below its best (the addon, and index.js above its
// thresholds, run at that level), then `wasm` and `js` (index.js on the WebAssembly tier, then on
// JavaScript; the other implementations as always).

const assert = require('node:assert');
const { execFileSync, spawnSync } = require('node:child_process');
const path = require('node:path');
const { it } = require('node:test');

const root = path.join(__dirname, '..');
const suite = path.join(__dirname, 'mask.test.js');

function backendWith(level) {
  const env = { ...process.env, BUFFERUTIL_SIMD_LEVEL: level };
  const script = "process.stdout.write(require('./lib/native').backend)";
  return execFileSync(process.execPath, ['-e', script], { cwd: root, env, encoding: 'utf8' });
}

const best = backendWith('');
const capped = ['avx2', 'sse2', 'neon', 'scalar'].filter((level) => level !== best && backendWith(level) === level);

for (const level of [...capped, 'wasm', 'js']) {
  it(`passes the conformance suite with BUFFERUTIL_SIMD_LEVEL=${level}`, () => {
    const env = { ...process.env, BUFFERUTIL_SIMD_LEVEL: level };
    const run = spawnSync(process.execPath, ['--test', '--test-reporter=dot', suite], { env, encoding: 'utf8' });
    assert.strictEqual(run.status, 0, `${run.stdout}\n${run.stderr}`);
  });
}

it('caps below the best level on this CPU where there is one', () => {
  if (best === 'scalar') return;
  assert.ok(capped.includes('scalar'), `capped levels: ${capped}`);
});
