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
  const clean = { ...process.env, BUFFERUTIL_SIMD_LEVEL: undefined, ...env };
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

test('fails on a corrupt addon or none (it runs WebAssembly), on a level cap, and with --installed on the clone', () => {
  for (const [dir, args, env, why] of [
    [packageWith('corrupt', Buffer.from('\x7fELF, but not an addon')), [], {}, 'backend is wasm'],
    [packageWith('none'), [], {}, 'backend is wasm'],
    ...['wasm', 'js', 'scalar'].map((level) => [
      root,
      [],
      { BUFFERUTIL_SIMD_LEVEL: level },
      `BUFFERUTIL_SIMD_LEVEL=${level} caps the level`,
    ]),
    [root, ['--installed'], {}, 'the addon is not from an installed bufferutil-simd-<platform> package'],
  ]) {
    const { status, output } = smoke(dir, args, env);
    assert.equal(status, 1, `${dir} ${args} ${JSON.stringify(env)}: ${output}`);
    assert.ok(output.includes(`FAILED: ${why}`), output);
  }
});
