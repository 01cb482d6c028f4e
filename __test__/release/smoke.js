'use strict';

// scripts/smoke.js, the release's check that a package runs its native addon: it fails each way the tests name and
// passes on the same package with a good addon. Needs the addon `npm run build` leaves in the repo root.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { root, rootManifest, tempDir } = require('../../scripts/lib/packages');
const { cleanEnv } = require('../../scripts/lib/child');

const host = `${rootManifest.napi.binaryName}.${process.platform}-${process.arch}`;
const addon = fs.readdirSync(root).find((name) => name.startsWith(host) && name.endsWith('.node'));

let work;
before(() => {
  assert.ok(addon, `no ${host}*.node in the repo root: run npm run build`);
  work = tempDir('bufferutil-simd-smoke-');
});
after(() => fs.rmSync(work, { recursive: true, force: true }));

/** scripts/smoke.js run on `dir` with `args`, and `env` over a level cap's absence: its exit status and output. */
function smoke(dir, args = [], env = {}) {
  const command = [path.join(root, 'scripts', 'smoke.js'), dir, ...args];
  const { status, stdout, stderr } = spawnSync(process.execPath, command, { encoding: 'utf8', env: cleanEnv(env) });
  return { status, output: stdout + stderr };
}

/** A copy of the package's shipped files in a folder of its own, with `file` (or nothing) as its addon. */
function packageWith(name, file) {
  const dir = path.join(work, name);
  for (const entry of ['package.json', 'index.js', 'portable.js', 'lib'])
    fs.cpSync(path.join(root, entry), path.join(dir, entry), { recursive: true });
  if (file !== undefined) fs.writeFileSync(path.join(dir, addon), file);
  return dir;
}

test('passes on a package whose addon loads; fails on a corrupt addon or none (it runs WebAssembly), on a level cap, and with --installed on the clone', () => {
  const capped = (level) => [root, `FAILED: BUFFERUTIL_SIMD_LEVEL=${level} caps the level`, [], { BUFFERUTIL_SIMD_LEVEL: level }];
  for (const [dir, says, args, env] of [
    [packageWith('good', fs.readFileSync(path.join(root, addon))), 'smoke: passed'],
    [packageWith('corrupt', Buffer.from('\x7fELF, but not an addon')), 'FAILED: backend is wasm'],
    [packageWith('none'), 'FAILED: backend is wasm'],
    ...['wasm', 'js', 'scalar'].map(capped),
    [root, 'FAILED: the addon is not from an installed bufferutil-simd-<platform> package', ['--installed']],
  ]) {
    const { status, output } = smoke(dir, args, env);
    assert.equal(status, says === 'smoke: passed' ? 0 : 1, `${dir} ${args} ${JSON.stringify(env)}: ${output}`);
    assert.ok(output.includes(says), output);
  }
});
