'use strict';

// What the published package.json leaves out: the scripts npm runs when a package is installed. The repo's
// `prepare` builds the addon in a clone (`npm install`, the README's first command); npm never runs it for
// a registry tarball, yet npm 11 lists it on every install of one ("npm warn install-scripts ...
// (prepare: node scripts/build.js)"), and a user cannot tell it apart from a script that would run. So the
// repo keeps it and every tarball drops it: pack-platforms.js strips the manifest it packs, and the
// release strips package.json with this file before `npm publish` (release.yml).
//
//   node scripts/lib/manifest.js package.json   rewrites that manifest without its install-time scripts

const fs = require('node:fs');

/** The lifecycle scripts npm runs on install (prepare for git and local folders, and its pre/post). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'];

/** `manifest` as it is published: the same fields in the same order, without install-time scripts. */
function publishedManifest(manifest) {
  const published = {};
  for (const [key, value] of Object.entries(manifest)) {
    if (key !== 'scripts') {
      published[key] = value;
      continue;
    }
    const kept = Object.fromEntries(Object.entries(value).filter(([name]) => !INSTALL_SCRIPTS.includes(name)));
    if (Object.keys(kept).length) published.scripts = kept;
  }
  return published;
}

/** The install-time scripts a manifest still has, as `name: command` strings (none: []). */
function installScripts(manifest) {
  return Object.entries(manifest.scripts ?? {})
    .filter(([name]) => INSTALL_SCRIPTS.includes(name))
    .map(([name, command]) => `${name}: ${command}`);
}

/** Rewrites the package.json at `file` as published; returns the scripts it removed. */
function stripFile(file) {
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
  const removed = installScripts(manifest);
  fs.writeFileSync(file, `${JSON.stringify(publishedManifest(manifest), null, 2)}\n`);
  return removed;
}

module.exports = { INSTALL_SCRIPTS, publishedManifest, installScripts, stripFile };

if (require.main === module) {
  const files = process.argv.slice(2);
  if (!files.length) {
    console.error('usage: node scripts/lib/manifest.js PACKAGE_JSON...');
    process.exitCode = 2;
  }
  for (const file of files) {
    const removed = stripFile(file);
    console.log(`${file}: ${removed.length ? `removed ${removed.join('; ')}` : 'no install-time scripts'}`);
  }
}
