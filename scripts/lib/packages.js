'use strict';

// The tarballs a release publishes, packed (from a staged copy of the repo) without publishing, and the user
// projects the install tests put them in.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFile, execFileSync } = require('node:child_process');
const { platformOf } = require('../targets');

const root = path.resolve(__dirname, '../..');
const rootManifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const { name: NAME, version: VERSION } = rootManifest;
const { binaryName, targets: TARGETS } = rootManifest.napi;
const execFileAsync = require('node:util').promisify(execFile);
const WINDOWS = process.platform === 'win32';

// The lifecycle scripts npm runs on install (prepare for git and local folders): the clone's `prepare` builds
// the addon, and npm 11 lists it as an install script of a registry tarball too, so tarballs drop them.
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'];
// What refuses a publish from a clone, whose manifest lists no platform packages (scripts/refuse-publish.js).
const CLONE_SCRIPTS = ['prepublishOnly'];

/** The install-time scripts a manifest has, as `name: command` strings. */
const installScripts = (manifest) =>
  Object.entries(manifest.scripts ?? {})
    .filter(([name]) => INSTALL_SCRIPTS.includes(name))
    .map(([name, command]) => `${name}: ${command}`);

/** Writes `manifest` as it is published: the same fields in the same order, without `private` and the clone's scripts. */
function writeManifest(file, { private: _clone, ...manifest }) {
  const kept = Object.entries(manifest.scripts ?? {}).filter(([name]) => ![...INSTALL_SCRIPTS, ...CLONE_SCRIPTS].includes(name));
  if (kept.length) manifest.scripts = Object.fromEntries(kept);
  else delete manifest.scripts;
  fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

function npmPack(dir, destination) {
  fs.mkdirSync(destination, { recursive: true });
  const args = ['pack', '--json', '--ignore-scripts', '--pack-destination', destination];
  const [{ filename }] = JSON.parse(execFileSync('npm', args, { cwd: dir, encoding: 'utf8' }));
  return path.join(destination, filename);
}

/** Packs into `out` the platform packages of the addons in `artifacts` (as scripts/build.js names them) and the root, whose
 * optionalDependencies name every napi target, all at the root's version. Returns `{ main, plain, platforms: { packageName:
 * tarball } }`, `plain` being the root without optionalDependencies. */
function packArtifacts(artifacts, out) {
  const built = TARGETS.filter((target) => fs.existsSync(path.join(artifacts, `${binaryName}.${platformOf(target)}.node`)));
  if (!built.length) throw new Error(`no ${binaryName}.*.node for any napi target in ${artifacts}`);
  const stage = tempDir('bufferutil-simd-stage-');
  try {
    // `npm pack` of the repo picks the files; the stage holds them with the published manifest.
    execFileSync('tar', ['-xzf', npmPack(root, stage), '-C', stage]);
    const pkg = path.join(stage, 'package');
    const manifestFile = path.join(pkg, 'package.json');
    writeManifest(manifestFile, rootManifest);
    const plain = npmPack(pkg, path.join(out, 'plain'));

    const platforms = {};
    for (const target of built) {
      const platform = platformOf(target);
      const dir = path.join(stage, 'npm', platform);
      fs.cpSync(path.join(root, 'npm', platform), dir, { recursive: true });
      fs.copyFileSync(path.join(artifacts, `${binaryName}.${platform}.node`), path.join(dir, `${binaryName}.${platform}.node`));
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      writeManifest(path.join(dir, 'package.json'), { ...manifest, version: VERSION });
      platforms[manifest.name] = npmPack(dir, out);
    }
    const optionalDependencies = Object.fromEntries(TARGETS.map((target) => [`${NAME}-${platformOf(target)}`, VERSION]));
    writeManifest(manifestFile, { ...rootManifest, optionalDependencies });
    return { main: npmPack(pkg, out), plain, platforms };
  } finally {
    if (!process.env.KEEP_TEMP) fs.rmSync(stage, { recursive: true, force: true });
  }
}

/** packArtifacts into `<work>/tarballs` of the addon `npm run build` left in the root, with `hostPlatform`, its package. */
function packRelease(work) {
  const out = path.join(work, 'tarballs');
  const platform = `${process.platform}-${process.arch}`;
  const file = fs.readdirSync(root).find((name) => name.startsWith(`${binaryName}.${platform}`) && name.endsWith('.node'));
  if (!file) throw new Error(`no ${binaryName}.${platform}*.node in ${root}: run \`npm run build\` first`);
  const artifacts = path.join(out, 'artifacts');
  fs.mkdirSync(artifacts, { recursive: true });
  fs.copyFileSync(path.join(root, file), path.join(artifacts, file));
  const hostPlatform = `${NAME}-${file.slice(binaryName.length + 1, -'.node'.length)}`;
  return { ...packArtifacts(artifacts, out), hostPlatform };
}

const tempDir = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** Copies into an installed package the suite that runs against it: `__test__/` but what needs the repo, and its runners. */
function copySuite(installed) {
  fs.cpSync(path.join(root, '__test__'), path.join(installed, '__test__'), {
    recursive: true,
    filter: (source) => !/__test__[\\/](integration|types)$/.test(source),
  });
  fs.mkdirSync(path.join(installed, 'scripts'), { recursive: true });
  for (const file of ['smoke.js', 'test-js.js'])
    fs.copyFileSync(path.join(root, 'scripts', file), path.join(installed, 'scripts', file));
}

/** A user's empty project. */
function userProject(work, name) {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, private: true }, null, 2));
  return dir;
}

/** Runs a command without blocking the event loop (the local registry lives in this process); npm is npm.cmd on Windows. */
const run = (command, args, options) =>
  execFileAsync(command, args, { encoding: 'utf8', maxBuffer: 64 << 20, shell: WINDOWS, ...options }).catch((error) => {
    error.message += `\n--- stdout\n${error.stdout}\n--- stderr\n${error.stderr}`;
    throw error;
  });

/** `npm install` in `cwd` against `registry`, quietly; resolves to npm's output. */
const npmInstall = (cwd, registry, args) =>
  run('npm', ['install', '--registry', registry, '--no-audit', '--no-fund', '--no-update-notifier', ...args], { cwd });

module.exports = {
  root,
  rootManifest,
  CLONE_SCRIPTS,
  installScripts,
  packArtifacts,
  packRelease,
  tempDir,
  copySuite,
  userProject,
  run,
  npmInstall,
};
