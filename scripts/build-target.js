'use strict';

// The release's build of one napi target, the one command for it: release.yml's build job runs it on the
// target's runner, and pack-platforms.js (so .ci/run) runs it here. The toolchain is scripts/targets.js's:
// the linux builds go through cargo-zigbuild (the glibc ones against glibc GLIBC), Windows x64 through
// mingw-w64, macOS and Windows arm64 through the runner's own. The napi-rs CLI is tools/package.json's.
//
//   node scripts/build-target.js TARGET [--output-dir DIR]   writes DIR/bufferutil-simd.<platform>.node

const { execFileSync, spawnSync } = require('node:child_process');
const path = require('node:path');
const { targets, GLIBC } = require('./targets');
const { onPath, zigTools } = require('./lib/runtimes');
const { emptyLibnode } = require('./lib/libnode');

const root = path.join(__dirname, '..');

/** The environment `napi build` needs for `toolchain`, or throws why this machine cannot build `target`. */
function buildEnv(target, toolchain) {
  const env = { ...process.env };
  if (toolchain === 'zig') env.PATH = [...zigTools(), env.PATH].join(path.delimiter);
  if (toolchain === 'mingw') {
    const linker = `${target.split('-')[0]}-w64-mingw32-gcc`;
    if (!onPath(linker)) throw new Error(`no ${linker} on PATH (Debian's or Ubuntu's gcc-mingw-w64 package)`);
    env[`CARGO_TARGET_${target.toUpperCase().replace(/-/g, '_')}_LINKER`] = linker;
    env.LIBNODE_PATH ??= emptyLibnode();
  }
  return env;
}

/** The `napi build` arguments: zig gets the glibc version as the target's suffix (`x86_64-unknown-linux-gnu.2.17`). */
function napiArgs(target, toolchain, outputDir) {
  const versioned = toolchain === 'zig' && target.endsWith('-linux-gnu') ? `${target}.${GLIBC}` : target;
  const cross = toolchain === 'zig' ? ['-x'] : [];
  return ['build', '--platform', '--release', '--no-js', '--target', versioned, ...cross, '--output-dir', outputDir];
}

/** Builds `target` into `outputDir`; throws why where this machine cannot. */
function buildTarget(target, outputDir) {
  const how = targets().find((t) => t.target === target);
  if (!how) throw new Error(`${target} is not in package.json's napi.targets`);
  const env = buildEnv(target, how.toolchain);
  if (!execFileSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' }).split(/\r?\n/).includes(target)) {
    execFileSync('rustup', ['target', 'add', target], { stdio: ['ignore', 'inherit', 'inherit'] });
  }
  const napi = [path.join(__dirname, 'tools.js'), 'napi', ...napiArgs(target, how.toolchain, path.resolve(outputDir))];
  // At low priority where there is `nice`: this machine is shared.
  const [command, args] = onPath('nice') ? ['nice', ['-n', '10', process.execPath, ...napi]] : [process.execPath, napi];
  console.error(`build-target: ${target} (${how.toolchain}): napi ${napi.slice(2).join(' ')}`);
  const { status } = spawnSync(command, args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (status !== 0) throw new Error(`napi build for ${target} exited ${status}`);
}

module.exports = { buildTarget };

if (require.main === module) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--output-dir');
  const target = args.find((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--output-dir');
  if (!target) {
    console.error('usage: node scripts/build-target.js TARGET [--output-dir DIR]');
    process.exitCode = 2;
  } else buildTarget(target, at >= 0 ? args[at + 1] : root);
}
