'use strict';

// `node scripts/build.js [TARGET] [--output-dir DIR]`: cargo's cdylib as DIR/bufferutil-simd.<platform>.node; without
// TARGET (`npm run build`, run by `npm install`), this machine's, into the package root, where lib/tiers/addon.js looks
// first. A TARGET builds as the release does, with scripts/targets.js's toolchain (zig: glibc builds against GLIBC).

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { targets, platformOf, GLIBC } = require('./targets');
const { onPath, zigTools } = require('./lib/runtimes');

const root = path.join(__dirname, '..');

// windows-gnu (docs/windows.md): napi-build links `-lnode` and panics unless LIBNODE_PATH holds a libnode.dll, though
// the addon takes nothing from it (napi's dyn-symbols finds Node-API in the loading process): empty archives answer
// napi-build's check and zig's lookup. zig's linker drops rustc's export list, so the module's one export is listed here,
// its path relative to the root cargo runs in (RUSTFLAGS splits at spaces).
function windowsGnu(key) {
  const dir = path.join(root, 'target', 'windows-gnu');
  fs.mkdirSync(dir, { recursive: true });
  for (const name of ['libnode.dll', 'libnode.a']) fs.writeFileSync(path.join(dir, name), '!<arch>\n');
  const exports = path.join(dir, 'exports.def');
  fs.writeFileSync(exports, 'EXPORTS\n    napi_register_module_v1\n');
  return { LIBNODE_PATH: dir, [key('RUSTFLAGS')]: `-C link-arg=${path.relative(root, exports)}` };
}

/** The cargo subcommand, triple and environment the release builds `target` with, its standard library added if missing. */
function cargoFor(target) {
  const how = targets().find((t) => t.target === target);
  if (!how) throw new Error(`${target} is not in package.json's napi.targets`);
  if (!execFileSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' }).split(/\r?\n/).includes(target))
    execFileSync('rustup', ['target', 'add', target], { stdio: ['ignore', 'inherit', 'inherit'] });
  const env = { ...process.env };
  const key = (name) => `CARGO_TARGET_${target.toUpperCase().replace(/-/g, '_')}_${name}`;
  if (how.toolchain === 'zig') {
    env.PATH = [...zigTools(), env.PATH].join(path.delimiter);
    // musl targets link statically by default, which leaves no cdylib: an addon links libc dynamically.
    if (target.endsWith('-musl')) env[key('RUSTFLAGS')] = '-C target-feature=-crt-static';
    if (target.endsWith('-windows-gnu')) Object.assign(env, windowsGnu(key));
    return { cargo: 'zigbuild', triple: target.endsWith('-linux-gnu') ? `${target}.${GLIBC}` : target, env };
  }
  return { cargo: 'build', triple: target, env };
}

/** Builds `target` (this machine's when undefined) into `outputDir`; returns the addon's path. */
function build(target, outputDir = root) {
  const host = /^host: (.+)$/m.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))[1];
  const command = target === undefined ? { cargo: 'build', triple: host, env: process.env } : cargoFor(target);
  // A TARGET (what the release ships) builds from Cargo.lock as committed, at low priority where there is `nice`.
  const [nice, locked] = target === undefined ? [[], []] : [onPath('nice') ? ['nice', '-n', '10'] : [], ['--locked']];
  const [program, ...args] = [...nice, 'cargo', command.cargo, '--release', ...locked, '--lib', '--target', command.triple];
  execFileSync(program, args, { cwd: root, env: command.env, stdio: ['ignore', 'inherit', 'inherit'] });
  // The cdylib: libbufferutil_simd.so or .dylib, or bufferutil_simd.dll, under the target without its glibc suffix.
  const triple = target ?? host;
  const so = triple.includes('-apple-') ? 'dylib' : 'so';
  const file = triple.includes('-windows-') ? 'bufferutil_simd.dll' : `libbufferutil_simd.${so}`;
  const library = path.join(path.resolve(root, process.env.CARGO_TARGET_DIR ?? 'target'), triple, 'release', file);
  const addon = path.join(path.resolve(outputDir), `bufferutil-simd.${platformOf(triple)}.node`);
  fs.mkdirSync(path.dirname(addon), { recursive: true });
  // Replaced, not overwritten in place: a running process may have the old file mapped.
  fs.rmSync(addon, { force: true });
  fs.copyFileSync(library, addon);
  console.error(`build: ${path.relative(root, library)} -> ${path.relative(root, addon)}`);
  return addon;
}

module.exports = { build };

if (require.main === module) {
  const options = { 'output-dir': { type: 'string', default: root } };
  const { values, positionals } = require('node:util').parseArgs({ options, allowPositionals: true });
  build(positionals[0], values['output-dir']);
}
