'use strict';

// scripts/smoke.js, the release's check that a package runs its native addon: it must fail on a package
// whose addon is a corrupt file, on one with no addon, on a level cap, and on the clone's own addon when it
// is required to come from an installed platform package; and pass on the same package with a good addon.
// Needs the addon `npm run build` leaves in the repo root.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.join(__dirname, '..', '..');
const SMOKE = path.join(root, 'scripts', 'smoke.js');
const { binaryName } = require('../../package.json').napi;
const addon = fs
  .readdirSync(root)
  .find((name) => name.startsWith(`${binaryName}.${process.platform}-${process.arch}`) && name.endsWith('.node'));

function smoke(dir, args = [], env = {}) {
  const clean = { ...process.env, ...env };
  if (!('BUFFERUTIL_SIMD_LEVEL' in env)) delete clean.BUFFERUTIL_SIMD_LEVEL;
  const { status, stdout, stderr } = spawnSync(process.execPath, [SMOKE, dir, ...args], { encoding: 'utf8', env: clean });
  return { status, output: stdout + stderr };
}

let work;
/** A copy of the package's shipped files in a folder of its own, with `file` (or nothing) as its addon. */
function packageWith(name, file) {
  const dir = path.join(work, name);
  for (const entry of ['package.json', 'index.js', 'portable.js', 'lib']) {
    fs.cpSync(path.join(root, entry), path.join(dir, entry), { recursive: true });
  }
  if (file !== undefined) fs.writeFileSync(path.join(dir, addon), file);
  return dir;
}

before(() => {
  assert.ok(addon, `no ${binaryName}.${process.platform}-${process.arch}*.node in the repo root: run npm run build`);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-smoke-'));
});
after(() => fs.rmSync(work, { recursive: true, force: true }));

test('passes on a package whose addon loads', () => {
  const { status, output } = smoke(packageWith('good', fs.readFileSync(path.join(root, addon))));
  assert.equal(status, 0, output);
  assert.match(output, /smoke: passed/);
});

test('fails on a package whose addon is a corrupt file, and on one with no addon: it runs WebAssembly', () => {
  for (const [name, file] of [
    ['corrupt', Buffer.from('\x7fELF, but not an addon')],
    ['none', undefined],
  ]) {
    const { status, output } = smoke(packageWith(name, file));
    assert.equal(status, 1, `${name}: ${output}`);
    assert.match(output, /FAILED: backend is wasm/);
  }
});

test('fails when a level cap keeps the addon from its widest level', () => {
  for (const level of ['wasm', 'js', 'scalar']) {
    const { status, output } = smoke(root, [], { BUFFERUTIL_SIMD_LEVEL: level });
    assert.equal(status, 1, `${level}: ${output}`);
    assert.match(output, new RegExp(`FAILED: BUFFERUTIL_SIMD_LEVEL=${level} caps the level`));
  }
});

test('--installed fails on an addon that is not from a platform package', () => {
  const { status, output } = smoke(root, ['--installed']);
  assert.equal(status, 1, output);
  assert.match(output, /FAILED: the addon is not from an installed bufferutil-simd-<platform> package/);
});
