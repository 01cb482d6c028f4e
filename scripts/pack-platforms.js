'use strict';

// `node scripts/pack-platforms.js [TARGET...] [--strict] [--out DIR] [--from DIR]`: every napi.targets entry this machine
// builds (scripts/build.js TARGET), or the addons in --from DIR, packed as the release's tarballs into --out DIR
// (target/packages/) with a packages.json; a target missing but not "built only by the release workflow" fails --strict.

const fs = require('node:fs');
const path = require('node:path');
const { targets } = require('./targets');
const { root, rootManifest, packArtifacts } = require('./lib/packages');
const { build } = require('./build');

const USAGE = 'Usage: node scripts/pack-platforms.js [TARGET...] [--strict] [--out DIR] [--from DIR]';
const options = {
  strict: { type: 'boolean' },
  out: { type: 'string' },
  from: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};
let parsed;
try {
  parsed = require('node:util').parseArgs({ options, allowPositionals: true });
} catch (error) {
  console.error(`${error.message}\n${USAGE}`);
  process.exit(2);
}
const { values, positionals: only } = parsed;
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const all = targets();
const unknown = only.filter((target) => !all.some((t) => t.target === target));
if (unknown.length) {
  console.error(`not in package.json's napi.targets: ${unknown.join(', ')}\n${USAGE}`);
  process.exit(2);
}
const out = path.resolve(values.out ?? path.join(root, 'target', 'packages'));
const from = values.from && path.resolve(values.from);

fs.rmSync(out, { recursive: true, force: true });
const artifacts = path.join(out, 'artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const skipped = [];
for (const t of all.filter(({ target }) => !only.length || only.includes(target))) {
  const file = `${rootManifest.napi.binaryName}.${t.platform}.node`;
  try {
    if (from) fs.copyFileSync(path.join(from, file), path.join(artifacts, file));
    else if (!t.local) skipped.push({ target: t.target, reason: `built only by the release workflow (${t.runner})` });
    else build(t.target, artifacts);
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
if (values.strict && failed.length) {
  console.error(`pack:platforms: --strict, and ${failed.length} target(s) that should be here are not`);
  process.exitCode = 1;
}
