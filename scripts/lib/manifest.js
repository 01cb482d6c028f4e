'use strict';

// The published package.json leaves out the scripts npm runs on install. The repo's `prepare` builds the
// addon in a clone (`npm install`); npm never runs it from a registry tarball, yet npm 11 lists it on every
// install of one as an install script. So every tarball drops them: lib/packages.js strips what it packs,
// and the release strips package.json with this file before `npm publish` (release.yml).
//
//   node scripts/lib/manifest.js package.json   rewrites that manifest without its install-time scripts

const fs = require('node:fs');

/** The lifecycle scripts npm runs on install (prepare for git and local folders, and its pre/post). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'];

/** The install-time scripts a manifest has, as `name: command` strings. */
const installScripts = (manifest) =>
  Object.entries(manifest.scripts ?? {})
    .filter(([name]) => INSTALL_SCRIPTS.includes(name))
    .map(([name, command]) => `${name}: ${command}`);

/** `manifest` as it is published: the same fields in the same order, without install-time scripts. */
function publishedManifest({ ...manifest }) {
  const scripts = Object.entries(manifest.scripts ?? {}).filter(([name]) => !INSTALL_SCRIPTS.includes(name));
  if (scripts.length) manifest.scripts = Object.fromEntries(scripts);
  else delete manifest.scripts;
  return manifest;
}

module.exports = { INSTALL_SCRIPTS, publishedManifest, installScripts };

if (require.main === module) {
  if (process.argv.length < 3) {
    console.error('usage: node scripts/lib/manifest.js PACKAGE_JSON...');
    process.exitCode = 2;
  }
  for (const file of process.argv.slice(2)) {
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    fs.writeFileSync(file, `${JSON.stringify(publishedManifest(manifest), null, 2)}\n`);
    const removed = installScripts(manifest);
    console.log(`${file}: ${removed.length ? `removed ${removed.join('; ')}` : 'no install-time scripts'}`);
  }
}
