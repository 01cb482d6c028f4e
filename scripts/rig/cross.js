'use strict';

// `node scripts/rig/cross.js [arm64|musl|win32|PLATFORM...] [--files mask,levels]` (README.md): each platform
// cross-built and packed by pack-platforms.js, unpacked into an app as npm would lay it out (npm refuses a package
// for another CPU, libc or OS), then in its Node scripts/smoke.js and the suite (emulated: differential at a tenth).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { root, rootManifest, copySuite, tempDir } = require('../lib/packages');
const { cleanEnv, runLogged, tail, testSummary } = require('../lib/child');
const { HOME, cached, onPath, ensureNode } = require('../lib/runtimes');
const { debianArchive, muslNode } = require('./musl');

const { name } = rootManifest;
const OUT = path.join(root, 'target', 'test-cross');
const PACK = path.join(root, 'scripts', 'pack-platforms.js');
const words = (text) => text.split(' ');
const succeeds = (command, args) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const sudo = (argv) => (process.getuid() === 0 ? argv : ['sudo', ...argv]);
const asRoot = (argv) => execFileSync(sudo(argv)[0], sudo(argv).slice(1), { stdio: 'inherit' });

/** Runs `argv`, its output shown, as a step that must succeed. */
function step(label, [command, ...args], env = process.env) {
  const started = Date.now();
  const { status } = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' });
  const took = ((Date.now() - started) / 1000).toFixed(0);
  console.log(`${label}: ${status === 0 ? 'done' : `FAILED (exit ${status})`} in ${took} s`);
  if (status !== 0) throw new Error(`${label} failed`);
}

// qemu-user, registered for aarch64 ELF files (e_machine 183) with binfmt_misc in a private user and mount namespace
// (Linux 6.7+): the suite's child processes are emulated too, and nothing is registered for the rest of the machine.
const MAGIC = '\\x7f\\x45\\x4c\\x46\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00';
const MASK = '\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff';
const MOUNT_BINFMT = 'mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc';
const qemu = (node) => {
  const interpreter = execFileSync('sh', ['-c', 'command -v qemu-aarch64'], { encoding: 'utf8' }).trim();
  const register = `printf '%s' ':${name}-aarch64:M::${MAGIC}:${MASK}:${interpreter}:F'`;
  const script = `set -e; ${MOUNT_BINFMT}; ${register} > /proc/sys/fs/binfmt_misc/register; exec "$@"`;
  return [...words('unshare --user --map-root-user --mount sh -c'), script, 'sh', node];
};
const binfmt = () =>
  succeeds('unshare', [...words('--user --map-root-user --mount sh -c'), MOUNT_BINFMT])
    ? undefined
    : `this kernel (${os.release()}) gives a user namespace no binfmt_misc of its own, which the arm64 Node's child processes need`;

// Wine: Debian 13's (Debian 12's cannot start Node 24 or 26), in a root filesystem mmdebstrap makes once, entered by
// unshare and chroot. ENTER mounts what Wine needs into the root filesystem ($1), binds each HOST INSIDE pair up to
// `--`, then runs the rest in the directory after `--`, with a wineserver that exits (saving the prefix) with the last.
const ROOTFS = path.join(HOME, 'wine', 'trixie-rootfs');
const PREFIX = path.join(HOME, 'wine', 'prefix');
const ENTER = `
set -e
root=$1; shift
mount --rbind /dev "$root/dev"
mount -t proc proc "$root/proc"
mount -t tmpfs tmpfs "$root/tmp"
while [ "$1" != -- ]; do mkdir -p "$root$2"; mount --bind "$1" "$root$2"; shift 2; done
shift
exec chroot "$root" /bin/sh -c 'mkdir -m 700 /tmp/xdg; cd "$0"; wineserver -p0; "$@"; status=$?; wineserver -w; exit $status' "$@"
`;
const WINE_ENV = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/root',
  LANG: 'C.UTF-8',
  WINEPREFIX: '/tmp/prefix',
  WINEDEBUG: '-all',
  WINEDLLOVERRIDES: 'mscoree,mshtml=', // no Gecko or Mono installer prompts
  XDG_RUNTIME_DIR: '/tmp/xdg',
};
function inWine(binds, cwd, command, log, env) {
  const pairs = Object.entries({ '/tmp/prefix': PREFIX, ...binds }).flatMap(([inside, host]) => [host, inside]);
  const args = [...words('--user --map-root-user --mount --pid --fork sh -c'), ENTER, 'sh', ROOTFS, ...pairs, '--', cwd];
  return runLogged('unshare', [...args, ...command], { log, env: { ...WINE_ENV, ...env } });
}
function wine() {
  if (!succeeds('unshare', words('--user --map-root-user --mount --pid --fork true')))
    return `this kernel (${os.release()}) gives no unprivileged user, mount and PID namespaces to enter Wine's root filesystem in`;
  if (!fs.existsSync(path.join(ROOTFS, 'usr', 'lib', 'wine'))) {
    const staging = `${ROOTFS}.partial-${process.pid}`;
    fs.mkdirSync(path.dirname(ROOTFS), { recursive: true });
    const mmdebstrap = [
      ...words('mmdebstrap --quiet --variant=essential --include=wine,wine64'),
      '--aptopt=APT::Install-Recommends "false"',
    ];
    try {
      step('Wine root filesystem (mmdebstrap, as root)', sudo([...mmdebstrap, 'trixie', staging, debianArchive()]));
      asRoot(['mv', '-T', staging, ROOTFS]); // once complete: its symlinks are absolute, they resolve only inside it
    } finally {
      if (fs.existsSync(staging)) asRoot(['rm', '-rf', staging]);
    }
  }
  cached(PREFIX, 'system.reg', 'a Wine prefix (wineboot)', (staging) => {
    const { status, text } = inWine({ '/tmp/prefix': staging }, '/', ['wineboot', '--init'], path.join(OUT, 'wineboot.log'));
    if (status !== 0 || !fs.existsSync(path.join(staging, 'system.reg')))
      throw new Error(`wineboot failed (exit ${status}): ${tail(text)}`);
  });
}

/** Runs the platform's `node` (natively, under qemu or Wine) with `args` in the installed package in `app`. */
function runNode(p, app, node, args, log) {
  const cwd = path.join('node_modules', name);
  if (p.launcher === 'wine') {
    const wineNode = ['wine', `/tmp/node/${path.basename(node)}`, ...args];
    return inWine({ '/tmp/app': app, '/tmp/node': path.dirname(node) }, path.posix.join('/tmp/app', cwd), wineNode, log, p.env);
  }
  const command = ['nice', '-n', '10', ...(p.launcher === 'qemu' ? qemu(node) : [node]), ...args];
  return runLogged(command[0], command.slice(1), { cwd: path.join(app, cwd), env: cleanEnv(p.env), log });
}

const musl = () =>
  ['apt-get', 'dpkg-deb'].every(onPath) && succeeds('python3', words('-m pip --version'))
    ? undefined
    : 'the musl Node comes from PyPI (python3 -m pip) and its loader from Debian (apt-get, dpkg-deb), and one is missing';
const SCALED = { DIFFERENTIAL_SCALE: process.env.DIFFERENTIAL_SCALE ?? '0.1' };
const ARM64 = { backend: 'neon', launcher: 'qemu', env: SCALED };

// target; debian: the packages it needs, if any; needs(): why it cannot run here, if it cannot; nodes(): label →
// binary; launcher: how its Node runs (runNode); backend: the level smoke.js must see, if not this CPU's widest.
const PLATFORMS = {
  'linux-arm64-gnu': {
    ...ARM64,
    target: 'aarch64-unknown-linux-gnu',
    debian: ['gcc-aarch64-linux-gnu', 'libc6-dev-arm64-cross', 'libstdc++6-arm64-cross', 'qemu-user'],
    needs: binfmt,
    nodes: () => ({ 22: ensureNode(22, 'linux-arm64') }),
    env: { ...SCALED, QEMU_LD_PREFIX: '/usr/aarch64-linux-gnu' },
    // The kernel's own tests for aarch64 (NEON), under qemu-user, and clippy for that target.
    kernel: {
      CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER: 'aarch64-linux-gnu-gcc',
      CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER: 'qemu-aarch64 -L /usr/aarch64-linux-gnu',
      ...SCALED,
    },
  },
  'linux-x64-musl': {
    target: 'x86_64-unknown-linux-musl',
    needs: musl,
    nodes: () => ({ 24: muslNode('x64') }),
  },
  'linux-arm64-musl': {
    ...ARM64,
    target: 'aarch64-unknown-linux-musl',
    debian: ['qemu-user'],
    needs: () => binfmt() ?? musl(),
    nodes: () => ({ 24: muslNode('arm64') }),
  },
  'win32-x64-gnu': {
    target: 'x86_64-pc-windows-gnu',
    debian: ['mmdebstrap'],
    needs: wine,
    nodes: () => {
      const lines = (process.env.BUFFERUTIL_SIMD_WINDOWS_LINES || '22,24,26').split(',').map((line) => line.trim());
      return Object.fromEntries(lines.map((major) => [major, ensureNode(major, 'win-x64')]));
    },
    launcher: 'wine',
    env: SCALED,
  },
};

/** Installs the missing ones of `packages` where allowed to; otherwise returns why the platform is skipped. */
function debianPackages(packages = []) {
  const status = (pkg) => spawnSync('dpkg-query', ['-W', `-f=\${Status}`, pkg], { encoding: 'utf8' }).stdout;
  const missing = packages.filter((pkg) => !status(pkg)?.includes('install ok installed'));
  if (!missing.length) return undefined;
  if (process.env.BUFFERUTIL_SIMD_INSTALL_SYSTEM_PACKAGES !== '1')
    return `Debian packages missing: ${missing.join(' ')} (apt-get install them, or rerun with BUFFERUTIL_SIMD_INSTALL_SYSTEM_PACKAGES=1)`;
  console.log(`test:cross: installing Debian packages (BUFFERUTIL_SIMD_INSTALL_SYSTEM_PACKAGES=1): ${missing.join(' ')}`);
  asRoot(['apt-get', 'update', '-q']);
  asRoot([...words('env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends'), ...missing]);
}

/** One platform: 'passed', 'FAILED', or why it was skipped. */
function test(platform, p, files) {
  const skip = debianPackages(p.debian) ?? p.needs();
  if (skip) return `skipped, ${skip}`;
  const packed = path.join(OUT, platform, 'packages');
  step(`${platform}: cross-build and pack`, [process.execPath, PACK, p.target, '--strict', '--out', packed]);
  for (const [command, ...rest] of p.kernel ? [words('clippy --all-targets -- -D warnings'), ['test', '--lib']] : []) {
    const cargo = [...words('nice -n 10 cargo'), command, '--target', p.target, ...rest];
    step(`${platform}: ${cargo.slice(3).join(' ')}`, cargo, { ...process.env, ...p.kernel });
  }

  const packages = JSON.parse(fs.readFileSync(path.join(packed, 'packages.json'), 'utf8'));
  const app = tempDir(`${name}-${platform}-`);
  const installed = path.join(app, 'node_modules', name);
  const unpack = (tarball, into) => {
    fs.mkdirSync(into, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', into, '--strip-components=1']);
  };
  unpack(packages.main, installed);
  unpack(packages.platforms[`${name}-${platform}`], `${installed}-${platform}`);
  copySuite(installed);
  let ok = true;
  try {
    for (const [line, node] of Object.entries(p.nodes())) {
      const label = `${platform}-node-${line}`;
      const run = (args, log) => runNode(p, app, node, args, log);
      const level = p.backend ?? require('../../lib/tiers/native').backend;
      const smoke = run(['scripts/smoke.js', '.', '--installed', '--level', level], path.join(OUT, `${label}.smoke.log`));
      console.log(`${label}: ${tail(smoke.text, 4)}`);
      ok = smoke.status === 0 && ok;
      if (smoke.status !== 0) continue;
      const [tap, started] = [path.join(OUT, `${label}.tap`), Date.now()];
      // A file per core (node --test leaves one idle): the suite is CPU-bound.
      const concurrency = `--test-concurrency=${os.availableParallelism()}`;
      const suite = run(['scripts/test-js.js', concurrency, '--test-reporter=tap', ...files], tap);
      ok = testSummary(`${label}: node:test suite`, suite, tap, started) && ok;
    }
  } finally {
    if (!process.env.KEEP_TEMP) fs.rmSync(app, { recursive: true, force: true });
  }
  return ok ? 'passed' : 'FAILED';
}

const options = { files: { type: 'string', default: '' } };
const { values, positionals: wanted } = require('node:util').parseArgs({ options, allowPositionals: true });
const files = values.files.split(',').filter(Boolean);
const selected = Object.keys(PLATFORMS).filter((platform) => !wanted.length || wanted.some((part) => platform.includes(part)));
if (!selected.length)
  throw new Error(`no platform matches ${wanted.join(' ')}; the platforms: ${Object.keys(PLATFORMS).join(', ')}`);

const results = selected.map((platform) => {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return [platform, `skipped, this is ${process.platform}-${process.arch}, not linux-x64`];
  try {
    return [platform, test(platform, PLATFORMS[platform], files)];
  } catch (error) {
    console.log(`${platform}: ${error.stack}`);
    return [platform, `FAILED: ${error.message.split('\n')[0]}`];
  }
});
for (const [platform, result] of results) console.log(`test:cross: ${platform}: ${result}`);
const bad = ([, result]) => result.startsWith('FAILED') || (process.env.CI && result.startsWith('skipped'));
process.exitCode = results.some(bad) ? 1 : 0;
