'use strict';

// The runtimes the tests run under and the tools the builds need, fetched from registries on first use into a cache
// outside the repo (BUFFERUTIL_SIMD_RUNTIMES and BUFFERUTIL_SIMD_TOOLS move it); nothing is installed system-wide.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');

const HOME = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'bufferutil-simd');
const CACHE = process.env.BUFFERUTIL_SIMD_RUNTIMES || path.join(HOME, 'runtimes');
const TOOLS = process.env.BUFFERUTIL_SIMD_TOOLS || path.join(HOME, 'tools');

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

/** `dir/file` (`dir` under TOOLS unless absolute) after `pip install --target dir SPECS`, wheels only, when missing;
 * with `hashes` (spec → sha256s), only those wheels. */
const PIP = '-m pip install --quiet --disable-pip-version-check --only-binary=:all: --target'.split(' ');
function pipped(dir, file, specs, hashes) {
  return cached(path.resolve(TOOLS, dir), file, specs.join(' '), (staging) => {
    if (!hashes) return run('python3', [...PIP, staging, ...specs]);
    // pip takes hashes only from a requirements file: one in `staging`, which cached() removes if pip fails.
    const requirements = path.join(staging, 'requirements.txt');
    const lines = specs.map((spec) => [spec, ...hashes[spec].map((hash) => `--hash=sha256:${hash}`)].join(' '));
    fs.writeFileSync(requirements, `${lines.join('\n')}\n`);
    run('python3', [...PIP, staging, '--require-hashes', '-r', requirements]);
    fs.rmSync(requirements);
  });
}

/** `npm install` of `spec` (--force: npm refuses a package for another OS or CPU otherwise); with `integrity` (package
 * name → the hash npm's lockfile records), each named package must have come with that hash, or nothing is cached. */
const NPM = ['install', '--force', '--no-audit', '--no-fund', '--no-update-notifier', '--prefix'];
const npmRuntime = ({ dir, spec, bin, integrity = {} }) =>
  cached(path.join(CACHE, dir), bin, spec, (staging) => {
    run('npm', [...NPM, staging, spec]);
    const { packages } = JSON.parse(fs.readFileSync(path.join(staging, 'package-lock.json'), 'utf8'));
    for (const [name, hash] of Object.entries(integrity)) {
      const got = packages[`node_modules/${name}`]?.integrity;
      if (got !== `sha512-${hash}`) throw new Error(`${spec}: ${name} came with ${got}; pinned: sha512-${hash}`);
    }
  });

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

// The package managers the install tests run, from the npm registry, each version and tarball hash pinned: pnpm 12 is
// a native binary (its platform package), Yarn 1 and 4 JavaScript files run by Node. Bun's and Deno's own installers
// are their runtimes' binaries above.
const MANAGERS = [
  {
    name: 'pnpm',
    dir: 'pnpm-12.25.1',
    spec: 'pnpm@12.25.1',
    bin: 'node_modules/@pnpm/exe.linux-x64/pnpm',
    integrity: {
      pnpm: 'psZ31wNNPXmvE28z2zPNbUEz1z+lZaBr1kqPCW0lN92HoI1o4Y/zd3cf9RwY4uwxvgO0RnDrGeJBiQ6uOu0Bag==',
      '@pnpm/exe.linux-x64': 'Db2T6CtSNO8hjG6FISkOaZ2PW/OpynoXcT+jWEh44xDgSBt68rgbjGIbzjXSKJ+vH2mkoUxaUZCcLLusBVqelw==',
    },
  },
  {
    name: 'yarn1',
    dir: 'yarn-1.22.22',
    spec: 'yarn@1.22.22',
    bin: 'node_modules/yarn/bin/yarn.js',
    integrity: { yarn: 'prL3kGtyG7o9Z9Sv8IPfBNrWTDmXB4Qbes8A9rEzt6wkJV8mUvoirjU0Mp3GGAU06Y0XQyA3/2/RQFVuK7MTfg==' },
  },
  {
    name: 'yarn4',
    dir: 'yarn-4.18.1',
    spec: '@yarnpkg/cli-dist@4.18.1',
    bin: 'node_modules/@yarnpkg/cli-dist/bin/yarn.js',
    integrity: {
      '@yarnpkg/cli-dist': 'EH+A4TxAtBWXKE0DGQxW9Bo9crXHLJ73mfxjTQJuv8XonNWWTpei8BQ5JjczHJNU9GROTycwMFn8iOvRIZXUcA==',
    },
  },
];

// The zig toolchain of every Linux build, here and in the release (scripts/build.js). It builds what ships,
// so pip takes only these wheels: the sha256 of each one's x86-64 and arm64 Linux wheel.
const ZIG = {
  'cargo-zigbuild==0.24.1': [
    '238a1ab54a95053a4eadc34775c81f795a8ad75f80bfed63f3f445f518102375',
    '07c5e3dcddf208500462ec927c556bb306cca2b533b0abe29446bffb63767b85',
  ],
  'ziglang==0.17.1': [
    'ea6cc5d87b033cf0aedfbc8f9549a908cae6c50ac31f1698188fa48a74524b54',
    'b7c5f02fccd40f89b999ee16a1f5ddced56e6182370f8affe494bcf8a28cf07e',
  ],
};

/** cargo-zigbuild and zig from PyPI, the wheels ZIG pins; returns the PATH entries. */
function zigTools() {
  const specs = Object.keys(ZIG);
  const dir = path.join(TOOLS, `zig-${specs.map((spec) => spec.split('==')[1]).join('-')}`);
  pipped(dir, 'bin/cargo-zigbuild', specs, ZIG);
  return [path.join(dir, 'bin'), path.join(dir, 'ziglang')];
}

module.exports = { HOME, CACHE, TOOLS, RUNTIMES, MANAGERS, run, onPath, cached, pipped, npmRuntime, ensureNode, zigTools };
