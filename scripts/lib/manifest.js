'use strict';

// The published package.json leaves out what is there only for a clone. The repo's `prepare` builds the
// addon in a clone (`npm install`); npm never runs it from a registry tarball, yet npm 11 lists it on every
// install of one as an install script. `private` and `prepublishOnly` (scripts/refuse-publish.js) refuse a
// publish from a clone, whose manifest lists no platform packages. Every tarball drops them all:
// lib/packages.js packs each manifest through publishedManifest().

/** The lifecycle scripts npm runs on install (prepare for git and local folders, and its pre/post). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'];
/** The script that refuses `npm publish` from a clone. */
const CLONE_SCRIPTS = ['prepublishOnly'];

/** The install-time scripts a manifest has, as `name: command` strings. */
const installScripts = (manifest) =>
  Object.entries(manifest.scripts ?? {})
    .filter(([name]) => INSTALL_SCRIPTS.includes(name))
    .map(([name, command]) => `${name}: ${command}`);

/** `manifest` as it is published: the same fields in the same order, without the clone's own. */
function publishedManifest({ private: _clone, ...manifest }) {
  const scripts = Object.entries(manifest.scripts ?? {}).filter(
    ([name]) => !INSTALL_SCRIPTS.includes(name) && !CLONE_SCRIPTS.includes(name)
  );
  if (scripts.length) manifest.scripts = Object.fromEntries(scripts);
  else delete manifest.scripts;
  return manifest;
}

module.exports = { INSTALL_SCRIPTS, CLONE_SCRIPTS, publishedManifest, installScripts };
