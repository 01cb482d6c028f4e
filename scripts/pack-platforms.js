'use strict';

// `node scripts/pack-platforms.js`: builds every target in package.json's napi.targets that this machine can build
// (scripts/targets.js says which and how) and packs the tarballs the release would publish: one per platform
// package (npm/<platform>, its addon put there by `napi artifacts`) and the root package with the
// optionalDependencies `napi pre-publish` pins. The napi steps are release.yml's, run in a staged copy, so
// the repo is left as it was. Tarballs and a packages.json listing them go to target/packages/ (or --out DIR).
//
// A target whose tools are missing is skipped with the reason; `--strict` (CI) makes that a failure.
// Tools: aarch64 glibc needs Debian's gcc-aarch64-linux-gnu (`scripts/test-aarch64.sh` installs it when allowed
// to); the musl targets need cargo-zigbuild and zig, which this script installs from PyPI into a cache folder;
// Windows x64 needs Debian's gcc-mingw-w64-x86-64-win32 (`scripts/test-windows.sh` installs it when allowed to).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { targets, platformOf } = require('./targets');
const { ensureTools } = require('./tools');
const { publishedManifest } = require('./lib/manifest');
const { emptyLibnode } = require('./lib/libnode');

const root = path.resolve(__dirname, '..');
const rootManifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const binaryName = rootManifest.napi.binaryName;
const TOOLS =
  process.env.BUFFERUTIL_SIMD_TOOLS ??
  path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'bufferutil-simd', 'tools');

function onPath(command) {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** cargo-zigbuild and zig from PyPI, in the tools cache; returns the PATH entries, or throws why not. */
function zigTools() {
  const dir = path.join(TOOLS, 'zig');
  const paths = [path.join(dir, 'bin'), path.join(dir, 'ziglang')];
  if (!fs.existsSync(path.join(dir, 'bin', 'cargo-zigbuild'))) {
    if (!onPath('python3')) throw new Error('cargo-zigbuild and zig come from PyPI, and there is no python3 here');
    console.error(`pack:platforms: installing cargo-zigbuild and ziglang (zig) from PyPI into ${dir}`);
    execFileSync(
      'python3',
      ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', dir, 'cargo-zigbuild', 'ziglang'],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
      }
    );
  }
  return paths;
}

/** The environment napi build needs for `how`, or throws why this machine cannot build it. */
function buildEnv(target, how) {
  const env = { ...process.env };
  if (how === 'cross-gcc') {
    const gcc = `${target.split('-')[0]}-linux-gnu-gcc`;
    if (!onPath(gcc)) throw new Error(`no ${gcc} (Debian's gcc-aarch64-linux-gnu; see scripts/test-aarch64.sh)`);
    env[`CARGO_TARGET_${target.toUpperCase().replace(/-/g, '_')}_LINKER`] = gcc;
  } else if (how === 'zig') {
    env.PATH = [...zigTools(), env.PATH].join(path.delimiter);
  } else if (how === 'mingw') {
    const gcc = `${target.split('-')[0]}-w64-mingw32-gcc`;
    if (!onPath(gcc)) throw new Error(`no ${gcc} (Debian's gcc-mingw-w64-x86-64-win32; see scripts/test-windows.sh)`);
    env[`CARGO_TARGET_${target.toUpperCase().replace(/-/g, '_')}_LINKER`] = gcc;
    env.LIBNODE_PATH ??= emptyLibnode();
  }
  return env;
}

function rustupTarget(target) {
  const installed = execFileSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' }).split('\n');
  if (!installed.includes(target)) execFileSync('rustup', ['target', 'add', target], { stdio: ['ignore', 'inherit', 'inherit'] });
}

/** Builds `target` into `artifacts` with the release's napi command (its flags where they apply here). */
function build({ target, local }, artifacts) {
  const env = buildEnv(target, local);
  rustupTarget(target);
  const flags = local === 'zig' ? ['-x'] : [];
  const started = Date.now();
  execFileSync(
    'nice',
    [
      '-n',
      '10',
      napiBin(),
      'build',
      '--platform',
      '--release',
      '--no-js',
      '--target',
      target,
      ...flags,
      '--output-dir',
      artifacts,
    ],
    {
      cwd: root,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    }
  );
  console.error(`pack:platforms: built ${target} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** The napi-rs CLI, from tools/ (installed on first use): the same version the release runs. */
function napiBin() {
  return path.join(ensureTools(), 'node_modules', '.bin', 'napi');
}

function npmPack(dir, destination) {
  const [{ filename }] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destination], { cwd: dir, encoding: 'utf8' })
  );
  return path.join(destination, filename);
}

/**
 * Packs the root package and the platform packages of the addons in `artifacts` (named as napi build names
 * them) into `out`, through release.yml's `napi artifacts` and `napi pre-publish` in a staged copy of the
 * repo. Those two refuse to run with any configured target missing, so the stage's napi.targets lists the
 * built ones; the root's optionalDependencies then name every configured target, as the release's do.
 * Every manifest packed is as published: without the repo's install-time scripts (scripts/lib/manifest.js).
 * Returns `{ main, plain, platforms: { packageName: tarball } }`; `plain` is the root as `npm pack` of a
 * clone makes it, but for those scripts.
 */
function packArtifacts(artifacts, out) {
  fs.mkdirSync(out, { recursive: true });
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-stage-'));
  try {
    const built = [];
    for (const target of rootManifest.napi.targets) {
      if (fs.existsSync(path.join(artifacts, `${binaryName}.${platformOf(target)}.node`))) built.push(target);
    }
    if (!built.length) throw new Error(`no ${binaryName}.*.node for any napi target in ${artifacts}`);

    // `npm pack` of the repo picks the files; the stage holds them with the published manifest.
    const packed = path.join(stage, 'packed');
    fs.mkdirSync(packed);
    execFileSync('tar', ['-xzf', npmPack(root, packed), '-C', stage]);
    fs.rmSync(packed, { recursive: true });
    const pkg = path.join(stage, 'package');
    const manifestPath = path.join(pkg, 'package.json');
    const writeManifest = (manifest) =>
      fs.writeFileSync(manifestPath, `${JSON.stringify(publishedManifest(manifest), null, 2)}\n`);
    writeManifest(rootManifest);
    const plainDir = path.join(out, 'plain');
    fs.mkdirSync(plainDir, { recursive: true });
    const plain = npmPack(pkg, plainDir);

    fs.cpSync(path.join(root, 'npm'), path.join(pkg, 'npm'), { recursive: true });
    fs.cpSync(artifacts, path.join(pkg, 'artifacts'), { recursive: true });
    writeManifest({ ...rootManifest, napi: { ...rootManifest.napi, targets: built } });
    // pre-publish reads the last commit (for a GitHub release it is not asked to make).
    const git = (...args) =>
      execFileSync('git', ['-c', 'user.name=stage', '-c', 'user.email=stage@localhost', ...args], { cwd: pkg, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'stage');

    // Quiet unless it fails: the error carries napi's output.
    const napi = (...args) => execFileSync(napiBin(), args, { cwd: pkg, stdio: 'pipe' });
    napi('artifacts', '--output-dir', 'artifacts', '--npm-dir', 'npm');
    napi('pre-publish', '-t', 'npm', '--skip-optional-publish');

    const staged = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
    const platforms = {};
    for (const target of built) {
      const dir = path.join(pkg, 'npm', platformOf(target));
      const platformManifest = path.join(dir, 'package.json');
      const manifest = publishedManifest(JSON.parse(fs.readFileSync(platformManifest, 'utf8')));
      fs.writeFileSync(platformManifest, `${JSON.stringify(manifest, null, 2)}\n`);
      platforms[manifest.name] = npmPack(dir, out);
    }
    // What pre-publish pinned for the built targets, and the same pin for the others, as in the release.
    const optionalDependencies = {};
    for (const target of rootManifest.napi.targets) {
      const name = `${rootManifest.name}-${platformOf(target)}`;
      optionalDependencies[name] = staged.optionalDependencies?.[name] ?? rootManifest.version;
    }
    writeManifest({ ...staged, napi: rootManifest.napi, optionalDependencies });
    const main = npmPack(pkg, out);
    return { main, plain, platforms };
  } finally {
    if (!process.env.KEEP_TEMP) fs.rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * The release's tarballs with only this machine's addon, the one `npm run build` left in the repo root
 * (what the install tests need, without building anything). Adds `hostPlatform`, its package's name.
 */
function packHost(out) {
  const platform = `${process.platform === 'win32' ? 'win32' : process.platform}-${process.arch}`;
  const file = fs.readdirSync(root).find((name) => name.startsWith(`${binaryName}.${platform}`) && name.endsWith('.node'));
  if (!file) throw new Error(`no ${binaryName}.${platform}*.node in ${root}: run \`npm run build\` first`);
  const artifacts = path.join(out, 'artifacts');
  fs.mkdirSync(artifacts, { recursive: true });
  fs.copyFileSync(path.join(root, file), path.join(artifacts, file));
  const release = packArtifacts(artifacts, out);
  return { ...release, hostPlatform: `${rootManifest.name}-${file.slice(binaryName.length + 1, -'.node'.length)}` };
}

function main() {
  const args = process.argv.slice(2);
  const strict = args.includes('--strict');
  const outIndex = args.indexOf('--out');
  const out = path.resolve(outIndex >= 0 ? args[outIndex + 1] : path.join(root, 'target', 'packages'));
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
  const report = { ...release, skipped };
  fs.writeFileSync(path.join(out, 'packages.json'), `${JSON.stringify(report, null, 2)}\n`);

  console.log(`root:     ${path.relative(root, release.main)}`);
  for (const [name, tarball] of Object.entries(release.platforms))
    console.log(`platform: ${path.relative(root, tarball)} (${name})`);
  for (const { target, reason } of skipped) console.log(`skipped:  ${target}: ${reason}`);
  const failed = skipped.filter((s) => s.failed);
  if (strict && failed.length) {
    console.error(`pack:platforms: --strict, and ${failed.length} target(s) this machine should build did not build`);
    process.exitCode = 1;
  }
}

module.exports = { packArtifacts, packHost };

if (require.main === module) {
  main();
}
