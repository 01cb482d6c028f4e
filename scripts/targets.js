'use strict';

// `node scripts/targets.js build-matrix | test-matrix`: the release workflow's matrices, as JSON. The targets
// are package.json's `napi.targets`; HOW says how each is built and where its packed tarballs are tested.

const { napi } = require('../package.json');
const { platformNames } = require('../lib/tiers/addon');

// The glibc the linux-gnu builds link against (cargo-zigbuild's `--target <triple>.<version>`), here and in
// the release: the floor docs/platforms.md states; scripts/glibc-floor.js checks both against it.
const GLIBC = '2.17';

// The musl runs' image by digest (a tag can be pushed again): the multi-arch index of Node 26.10.0 on Alpine.
const ALPINE = 'node:26.10.0-alpine@sha256:0b36e8c136b94cd4fcf02188228e76c31ad5872eef3fec8cbd2eee500cfd9e80';

// runner: the GitHub runner that builds it (default ubuntu-latest); toolchain: scripts/build.js's, 'zig' (this machine
// has it) or 'native' (Xcode, MSVC); test: the runner that tests the release's tarballs (in Docker `image`).
const HOW = {
  'x86_64-unknown-linux-gnu': { toolchain: 'zig', test: 'ubuntu-latest' },
  'aarch64-unknown-linux-gnu': { toolchain: 'zig', test: 'ubuntu-24.04-arm' },
  'x86_64-unknown-linux-musl': { toolchain: 'zig', test: 'ubuntu-latest', image: ALPINE },
  'aarch64-unknown-linux-musl': { toolchain: 'zig', test: 'ubuntu-24.04-arm', image: ALPINE },
  'x86_64-apple-darwin': { runner: 'macos-latest', toolchain: 'native', test: 'macos-15-intel' },
  'aarch64-apple-darwin': { runner: 'macos-latest', toolchain: 'native', test: 'macos-latest' },
  'x86_64-pc-windows-gnu': { toolchain: 'zig', test: 'windows-latest' },
  'aarch64-pc-windows-msvc': { runner: 'windows-latest', toolchain: 'native', test: 'windows-11-arm' },
};

const ARCH = { x86_64: 'x64', aarch64: 'arm64' };
const OS = { linux: 'linux', darwin: 'darwin', windows: 'win32' };

/** The platform name of a Rust target (x86_64-unknown-linux-gnu → linux-x64-gnu): the npm/<platform> folder, the platform
 * package's suffix, the addon's middle name; the loader's own (lib/tiers/addon.js's platformNames), of its ABI. */
function platformOf(triple) {
  const [cpu, , system, abi] = triple.split('-');
  const names = OS[system] && ARCH[cpu] ? platformNames(OS[system], ARCH[cpu]) : [];
  const name = names.find((candidate) => candidate.split('-').length === 2 || candidate.endsWith(`-${abi}`));
  if (!name) throw new Error(`no platform name for ${triple}`);
  return name;
}

/** napi.targets with HOW's recipe and `local` (this machine builds it); throws if the two lists differ. */
function targets() {
  const odd = [...napi.targets, ...Object.keys(HOW)].filter((target) => !HOW[target] || !napi.targets.includes(target));
  if (odd.length) throw new Error(`in scripts/targets.js's HOW or napi.targets but not both: ${odd.join(', ')}`);
  const how = (target) => ({ runner: 'ubuntu-latest', local: HOW[target].toolchain !== 'native', ...HOW[target] });
  return napi.targets.map((target) => ({ target, platform: platformOf(target), ...how(target) }));
}

module.exports = { targets, platformOf, GLIBC };

if (require.main === module) {
  const matrix = {
    'build-matrix': ({ target, runner }) => ({ target, host: runner }),
    'test-matrix': ({ target, platform, test, image }) => ({ target, platform, host: test, ...(image && { image }) }),
  }[process.argv[2]];
  if (!matrix) throw new Error('usage: node scripts/targets.js build-matrix | test-matrix');
  console.log(JSON.stringify({ include: targets().map(matrix) }));
}
