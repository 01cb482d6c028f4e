'use strict';

// `node scripts/pack-platforms.js [TARGET...] [--strict] [--out DIR]`: builds every napi.targets entry this
// machine can build (scripts/targets.js says how) with the release's `napi build`, and packs the release's
// tarballs (scripts/lib/packages.js) into target/packages/ or DIR, with a packages.json listing them. A
// target it cannot build is skipped with the reason; --strict makes that a failure. The cross linkers are
// Debian's (scripts/test-cross.js installs them when allowed to); cargo-zigbuild and zig come from PyPI.

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { targets } = require('./targets');
const { root, packArtifacts } = require('./lib/packages');
const { onPath, zigTools } = require('./lib/runtimes');
const { emptyLibnode } = require('./lib/libnode');
const { ensureTools } = require('./tools');

/** The environment `napi build` needs for `how`, or throws why this machine cannot build `target`. */
function buildEnv(target, how) {
  const env = { ...process.env };
  const linker = { 'cross-gcc': `${target.split('-')[0]}-linux-gnu-gcc`, mingw: `${target.split('-')[0]}-w64-mingw32-gcc` }[how];
  if (linker) {
    if (!onPath(linker)) throw new Error(`no ${linker} on PATH (a Debian cross gcc package)`);
    env[`CARGO_TARGET_${target.toUpperCase().replace(/-/g, '_')}_LINKER`] = linker;
  }
  if (how === 'zig') env.PATH = [...zigTools(), env.PATH].join(path.delimiter);
  if (how === 'mingw') env.LIBNODE_PATH ??= emptyLibnode();
  return env;
}

function build({ target, local }, artifacts) {
  const env = buildEnv(target, local);
  if (!execFileSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' }).split('\n').includes(target)) {
    execFileSync('rustup', ['target', 'add', target], { stdio: ['ignore', 'inherit', 'inherit'] });
  }
  const napi = path.join(ensureTools(), 'node_modules', '.bin', 'napi');
  const flags = local === 'zig' ? ['-x'] : [];
  const started = Date.now();
  execFileSync(
    'nice',
    ['-n', '10', napi, 'build', '--platform', '--release', '--no-js', '--target', target, ...flags, '--output-dir', artifacts],
    {
      cwd: root,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    }
  );
  console.error(`pack:platforms: built ${target} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = path.resolve(outAt >= 0 ? args[outAt + 1] : path.join(root, 'target', 'packages'));
const only = args.filter((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--out');

fs.rmSync(out, { recursive: true, force: true });
const artifacts = path.join(out, 'artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const skipped = [];
for (const t of targets()) {
  if (only.length && !only.includes(t.target)) continue;
  if (!t.local) {
    skipped.push({ target: t.target, reason: `built only by the release workflow (${t.runner})` });
    continue;
  }
  try {
    build(t, artifacts);
  } catch (error) {
    skipped.push({ target: t.target, reason: error.message.split('\n')[0], failed: true });
  }
}
const release = packArtifacts(artifacts, out);
fs.writeFileSync(path.join(out, 'packages.json'), `${JSON.stringify({ ...release, skipped }, null, 2)}\n`);

console.log(`root:     ${path.relative(root, release.main)}`);
for (const [name, tarball] of Object.entries(release.platforms))
  console.log(`platform: ${path.relative(root, tarball)} (${name})`);
for (const { target, reason } of skipped) console.log(`skipped:  ${target}: ${reason}`);
const failed = skipped.filter((s) => s.failed);
if (args.includes('--strict') && failed.length) {
  console.error(`pack:platforms: --strict, and ${failed.length} target(s) this machine should build did not build`);
  process.exitCode = 1;
}
