'use strict';

// The prebuilt targets are package.json's `napi.targets`; this file says how each is built and where it is
// tested: the GitHub runner and napi flags (release.yml reads its matrices from here), a runner that can
// load it, and how pack-platforms.js builds it here. A target in one list and not the other is an error.
//
//   node scripts/targets.js build-matrix | test-matrix   the release workflow's matrices, as JSON

const path = require('node:path');

const { napi } = require(path.join(__dirname, '..', 'package.json'));

// local: 'host', 'cross-gcc' (Debian's cross linker), 'zig' (cargo-zigbuild) or 'mingw' (Debian's mingw-w64
// gcc); absent where this machine cannot build it. The release links the glibc builds against glibc 2.17
// (--use-napi-cross); here they link against this machine's.
const HOW = {
  'x86_64-unknown-linux-gnu': { runner: 'ubuntu-latest', flags: '--use-napi-cross', testRunner: 'ubuntu-latest', local: 'host' },
  'aarch64-unknown-linux-gnu': {
    runner: 'ubuntu-latest',
    flags: '--use-napi-cross',
    testRunner: 'ubuntu-24.04-arm',
    local: 'cross-gcc',
  },
  'x86_64-unknown-linux-musl': { runner: 'ubuntu-latest', flags: '-x', local: 'zig' },
  'aarch64-unknown-linux-musl': { runner: 'ubuntu-latest', flags: '-x', local: 'zig' },
  'x86_64-apple-darwin': { runner: 'macos-latest', flags: '' },
  'aarch64-apple-darwin': { runner: 'macos-latest', flags: '', testRunner: 'macos-latest' },
  // Windows x64 is the GNU build, cross-linked with mingw-w64 in the release and here (docs/windows.md).
  // arm64 stays MSVC: Debian and Ubuntu have no mingw-w64 for aarch64.
  'x86_64-pc-windows-gnu': { runner: 'ubuntu-latest', flags: '', testRunner: 'windows-latest', local: 'mingw' },
  'aarch64-pc-windows-msvc': { runner: 'windows-latest', flags: '' },
};

const ARCH = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' };
const OS = { linux: 'linux', darwin: 'darwin', windows: 'win32' };

/**
 * napi-rs's platform name of a Rust target (x86_64-unknown-linux-gnu → linux-x64-gnu): the npm/<platform>
 * folder, the platform package's suffix, the addon's middle name. (napi's parseTriple is ESM-only on Node 18.)
 */
function platformOf(triple) {
  const [cpu, , system, abi] = triple.split('-');
  const os = OS[system];
  if (!os || !ARCH[cpu]) throw new Error(`no napi platform name for ${triple}`);
  return [os, ARCH[cpu], os === 'darwin' ? undefined : abi].filter(Boolean).join('-');
}

function targets() {
  const missing = napi.targets.filter((target) => !HOW[target]);
  const extra = Object.keys(HOW).filter((target) => !napi.targets.includes(target));
  if (missing.length || extra.length) {
    throw new Error(
      `scripts/targets.js and napi.targets disagree: no recipe for [${missing}], recipes for [${extra}] not in napi.targets`
    );
  }
  return napi.targets.map((target) => ({ target, platform: platformOf(target), ...HOW[target] }));
}

module.exports = { targets, platformOf };

if (require.main === module) {
  const matrix = {
    'build-matrix': (all) => all.map(({ target, runner, flags }) => ({ target, host: runner, flags })),
    'test-matrix': (all) => all.filter((t) => t.testRunner).map(({ target, testRunner }) => ({ target, host: testRunner })),
  }[process.argv[2]];
  if (matrix) console.log(JSON.stringify({ include: matrix(targets()) }));
  else {
    console.error('usage: node scripts/targets.js build-matrix | test-matrix');
    process.exitCode = 2;
  }
}
