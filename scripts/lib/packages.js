'use strict';

// Packs, in a temporary folder, the tarballs a release would publish (scripts/pack-platforms.js: the root
// package with the optionalDependencies that `napi pre-publish` adds, and this machine's platform package
// holding the addon that `npm run build` left in the repo root), and sets up user projects to install
// them. Nothing in the repo is changed.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { packHost } = require('../pack-platforms');

const root = path.resolve(__dirname, '../..');
const rootManifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/**
 * The tarballs a release would publish, packed by pack:platforms' own code into `<work>/tarballs`, with only
 * this machine's platform package (its addon the one `npm run build` left in the repo root). Returns
 * `{ main, plain, platforms: { name: tarball }, hostPlatform }`: `plain` is the root as `npm pack` of a clone
 * makes it, `main` as the release publishes it (optionalDependencies pinned).
 */
function packRelease(work) {
  return packHost(path.join(work, 'tarballs'));
}

function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A user's empty project. */
function userProject(work, name) {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, private: true }, null, 2));
  return dir;
}

/** Runs a command without blocking the event loop (the local registry lives in this process). */
function run(command, args, options) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options }, (error, stdout, stderr) => {
      if (error) {
        error.message += `\n--- stdout\n${stdout}\n--- stderr\n${stderr}`;
        reject(error);
      } else resolve({ stdout, stderr });
    });
  });
}

/** `npm install` in `cwd` against `registry`, quietly; resolves to npm's output. */
function npmInstall(cwd, registry, args) {
  return run('npm', ['install', '--registry', registry, '--no-audit', '--no-fund', '--no-update-notifier', ...args], {
    cwd,
  });
}

module.exports = { root, rootManifest, packRelease, tempDir, userProject, run, npmInstall };
