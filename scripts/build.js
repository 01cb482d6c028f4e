'use strict';

// `npm run build`, which `npm install` runs: the addon for this machine (release profile), copied beside
// the package root as `bufferutil-simd.<platform>.node`, the file lib/native.js loads first. Plain cargo: the
// napi-rs CLI needs a newer Node than the package supports, so it lives in tools/ for cross builds and the
// release (`node scripts/tools.js napi build --target <triple>`), and produces the same file from the same
// target/<triple>/release/ folder.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const { platformOf } = require('./targets');

const host = /^host: (.+)$/m.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))[1];

const messages = execFileSync(
  'cargo',
  ['build', '--release', '--lib', '--target', host, '--message-format=json-render-diagnostics'],
  { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 2 ** 20 }
);
// The cdylib cargo reports for this crate: libbufferutil_simd.so / .dylib, or bufferutil_simd.dll.
const library = messages
  .split('\n')
  .filter((line) => line.startsWith('{'))
  .map((line) => JSON.parse(line))
  .filter((message) => message.reason === 'compiler-artifact' && message.target.kind.includes('cdylib'))
  .flatMap((message) => message.filenames)
  .find((file) => /\.(so|dylib|dll)$/.test(file));
if (!library) throw new Error('cargo reported no cdylib for bufferutil-simd');

// Named as napi.targets' platforms are (scripts/targets.js), from the triple cargo built for.
const addon = path.join(root, `bufferutil-simd.${platformOf(host)}.node`);
// Replaced, not overwritten in place: a running process may have the old file mapped.
fs.rmSync(addon, { force: true });
fs.copyFileSync(library, addon);
console.log(`${path.relative(root, library)} -> ${path.basename(addon)}`);
