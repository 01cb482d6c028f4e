'use strict';

// The prebuilt targets have one definition: `napi.targets` in package.json. This file only says how each is
// built and where it is tested: on which GitHub runner with which napi flags (release.yml reads its matrices
// from here), and whether this repo's own scripts can build it on a Linux x64 machine (pack:platforms).
// A target in one list and not the other is an error, so the two cannot drift apart.
//
//   node scripts/targets.js build-matrix   the release workflow's build matrix, as JSON
//   node scripts/targets.js test-matrix    the targets a GitHub runner can load, as JSON
//   node scripts/targets.js local          the targets pack:platforms builds on this machine, one a line

const path = require('node:path');

const { napi } = require(path.join(__dirname, '..', 'package.json'));

// runner: the GitHub runner that builds it. flags: napi build's, in release.yml. testRunner: a runner that
// can load it, where there is one. local: how pack:platforms builds it here ('host', 'cross-gcc' for a
// Debian cross linker, 'zig' for cargo-zigbuild, 'mingw' for Debian's mingw-w64 gcc), or absent where it
// cannot.
const HOW = {
  // glibc builds link against glibc 2.17 in the release (napi-rs's cross toolchain) so old distributions
  // load them; here they link against the build machine's glibc.
  'x86_64-unknown-linux-gnu': { runner: 'ubuntu-latest', flags: '--use-napi-cross', testRunner: 'ubuntu-latest', local: 'host' },
  'aarch64-unknown-linux-gnu': {
    runner: 'ubuntu-latest',
    flags: '--use-napi-cross',
    testRunner: 'ubuntu-24.04-arm',
    local: 'cross-gcc',
  },
  // musl builds go through cargo-zigbuild, in the release and here.
  'x86_64-unknown-linux-musl': { runner: 'ubuntu-latest', flags: '-x', local: 'zig' },
  'aarch64-unknown-linux-musl': { runner: 'ubuntu-latest', flags: '-x', local: 'zig' },
  'x86_64-apple-darwin': { runner: 'macos-latest', flags: '' },
  'aarch64-apple-darwin': { runner: 'macos-latest', flags: '', testRunner: 'macos-latest' },
  // Windows x64 is the GNU build (docs/windows.md says why): built on Linux with mingw-w64, in the release
  // and here, where `scripts/test-windows.sh` runs it in the Windows Node under Wine; the release also loads
  // it on a Windows runner. arm64 stays MSVC: there is no mingw-w64 for aarch64 in Debian or Ubuntu.
  'x86_64-pc-windows-gnu': { runner: 'ubuntu-latest', flags: '', testRunner: 'windows-latest', local: 'mingw' },
  'aarch64-pc-windows-msvc': { runner: 'windows-latest', flags: '' },
};

const ARCH = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' };
const OS = { linux: 'linux', darwin: 'darwin', windows: 'win32' };

/**
 * napi-rs's platform name of a Rust target (x86_64-unknown-linux-gnu → linux-x64-gnu): the npm/<platform>
 * folder, the platform package's suffix and the addon's middle name. napi's own parseTriple is ESM-only
 * on Node 18, hence this; pack.js checks that every name has its npm/ folder.
 */
function platformOf(triple) {
  const [cpu, , system, abi] = triple.split('-');
  const os = OS[system];
  if (!os || !ARCH[cpu]) throw new Error(`no napi platform name for ${triple}`);
  return [os, ARCH[cpu], os === 'darwin' ? undefined : abi].filter(Boolean).join('-');
}

function targets() {
  const configured = napi.targets;
  const missing = configured.filter((target) => !HOW[target]);
  const extra = Object.keys(HOW).filter((target) => !configured.includes(target));
  if (missing.length || extra.length) {
    throw new Error(
      `scripts/targets.js and package.json napi.targets disagree: ` +
        `${missing.length ? `no build recipe for ${missing.join(', ')}` : ''}` +
        `${missing.length && extra.length ? '; ' : ''}` +
        `${extra.length ? `recipes for targets not in napi.targets: ${extra.join(', ')}` : ''}`
    );
  }
  return configured.map((target) => ({ target, platform: platformOf(target), ...HOW[target] }));
}

module.exports = { targets, platformOf };

if (require.main === module) {
  const command = process.argv[2];
  const all = targets();
  if (command === 'build-matrix') {
    console.log(JSON.stringify({ include: all.map(({ target, runner, flags }) => ({ target, host: runner, flags })) }));
  } else if (command === 'test-matrix') {
    const loadable = all.filter((t) => t.testRunner);
    console.log(JSON.stringify({ include: loadable.map(({ target, testRunner }) => ({ target, host: testRunner })) }));
  } else if (command === 'local') {
    for (const t of all) if (t.local) console.log(t.target);
  } else {
    console.error('usage: node scripts/targets.js build-matrix | test-matrix | local');
    process.exitCode = 2;
  }
}
