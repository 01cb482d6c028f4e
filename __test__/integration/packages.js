'use strict';

// Builds, in a temporary folder, the tarballs a release would publish: the root package with the
// optionalDependencies that `napi pre-publish` adds, and one package per `napi.targets` entry (npm/*), the
// one for this machine holding the addon that `npm run build` left in the repo root. Nothing in the repo
// is changed.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, execFile } = require('node:child_process');

const root = path.resolve(__dirname, '../..');
const rootManifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const binaryName = rootManifest.napi.binaryName;

function npmPack(dir, destination) {
  const [{ filename }] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destination], {
      cwd: dir,
      encoding: 'utf8',
    })
  );
  return path.join(destination, filename);
}

/** `npm run build`'s addon in the repo root and the npm/ folder it belongs in, or throws. */
function builtAddon() {
  const file = fs.readdirSync(root).find((name) => name.startsWith(`${binaryName}.`) && name.endsWith('.node'));
  if (!file) throw new Error(`no ${binaryName}.*.node in ${root}: run \`npm run build\` first`);
  return { file: path.join(root, file), platform: file.slice(binaryName.length + 1, -'.node'.length) };
}

/**
 * Packs everything into `<work>/tarballs`. Returns `{ main, platforms: {name: tarball}, hostPlatform }`.
 */
function packRelease(work) {
  const out = path.join(work, 'tarballs');
  const stage = path.join(work, 'stage');
  fs.mkdirSync(out, { recursive: true });
  fs.mkdirSync(stage, { recursive: true });

  const addon = builtAddon();
  const platforms = {};
  for (const dir of fs.readdirSync(path.join(root, 'npm'))) {
    const copy = path.join(stage, dir);
    fs.cpSync(path.join(root, 'npm', dir), copy, { recursive: true });
    if (dir === addon.platform) fs.copyFileSync(addon.file, path.join(copy, path.basename(addon.file)));
    platforms[`${rootManifest.name}-${dir}`] = npmPack(copy, out);
  }

  // The root package as `npm pack` makes it, then given what `napi pre-publish` writes before publishing.
  const plain = npmPack(root, stage);
  const unpacked = path.join(stage, 'root');
  fs.mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', plain, '-C', unpacked]);
  const manifestPath = path.join(unpacked, 'package', 'package.json');
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  manifest.optionalDependencies = Object.fromEntries(Object.keys(platforms).map((name) => [name, manifest.version]));
  fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
  const main = npmPack(path.join(unpacked, 'package'), out);

  return { main, plain, platforms, hostPlatform: `${rootManifest.name}-${addon.platform}` };
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

module.exports = { root, rootManifest, packRelease, tempDir, userProject, run, npmInstall, npmPack };
