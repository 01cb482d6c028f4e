'use strict';

// `node scripts/pack-platforms.js [TARGET...] [--strict] [--out DIR]`: builds every napi.targets entry this
// machine can build with the release's command (scripts/build.js TARGET), and packs the release's tarballs
// (scripts/lib/packages.js) into target/packages/ or DIR, with a packages.json listing them. A target it
// cannot build is skipped with the reason; --strict makes that a failure. The release's pack job runs
// `--from DIR` instead: it packs the addons the build jobs made (DIR/bufferutil-simd.<platform>.node),
// and --strict there fails unless every target is among them.

const fs = require('node:fs');
const path = require('node:path');
const { targets, platformOf } = require('./targets');
const { root, binaryName, packArtifacts } = require('./lib/packages');
const { build } = require('./build');

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = path.resolve(outAt >= 0 ? args[outAt + 1] : path.join(root, 'target', 'packages'));

const fromAt = args.indexOf('--from');
const from = fromAt >= 0 ? path.resolve(args[fromAt + 1]) : undefined;
const only = args.filter((arg, i) => !arg.startsWith('--') && !['--out', '--from'].includes(args[i - 1]));

fs.rmSync(out, { recursive: true, force: true });
const artifacts = path.join(out, 'artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const skipped = [];
for (const t of targets()) {
  if (only.length && !only.includes(t.target)) continue;
  const file = `${binaryName}.${platformOf(t.target)}.node`;
  if (from) {
    if (fs.existsSync(path.join(from, file))) fs.copyFileSync(path.join(from, file), path.join(artifacts, file));
    else skipped.push({ target: t.target, reason: `no ${file} in ${from}`, failed: true });
    continue;
  }
  if (!t.local) {
    skipped.push({ target: t.target, reason: `built only by the release workflow (${t.runner})` });
    continue;
  }
  const started = Date.now();
  try {
    build(t.target, artifacts);
    console.error(`pack:platforms: built ${t.target} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
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
  console.error(`pack:platforms: --strict, and ${failed.length} target(s) that should be here are not`);
  process.exitCode = 1;
}
