'use strict';

// `node scripts/smoke.js [PACKAGE_DIR] [--installed] [--level LEVEL]`, the release's smoke test of a package (the repo
// by default): the addon at this CPU's widest level or LEVEL, right bytes, and with --installed from the platform
// package npm installed beside it; WebAssembly, JavaScript, scalar or a narrower level fail.

const path = require('node:path');
const { cpuInfo } = require('../lib/cpu');

const RANKS = { scalar: 0, sse2: 1, neon: 1, avx2: 2, avx512: 3 };

/** The level the addon should run at here, from the CPU (lib/cpu.js), not the addon: the widest it has, capped by
 * BUFFERUTIL_SIMD_LEVEL; undefined where the CPU cannot be read (then any SIMD level of the architecture passes). */
function expectedNativeLevel(cap = process.env.BUFFERUTIL_SIMD_LEVEL) {
  let levels = ['scalar', 'neon'];
  if (process.arch === 'x64') {
    const { flags } = cpuInfo();
    if (!flags?.has('sse2')) return undefined;
    levels = ['scalar', 'sse2', ...(flags.has('avx2') ? ['avx2'] : [])];
    if (flags.has('avx512f') && flags.has('avx512bw')) levels.push('avx512');
  } else if (process.arch !== 'arm64') return undefined;
  const limit = RANKS[String(cap).trim().toLowerCase()] ?? Number.POSITIVE_INFINITY;
  return levels.filter((level) => RANKS[level] <= limit).pop();
}

module.exports = { expectedNativeLevel };

if (require.main === module) {
  const options = { installed: { type: 'boolean' }, level: { type: 'string' } };
  const { values, positionals } = require('node:util').parseArgs({ options, allowPositionals: true });
  const dir = path.resolve(positionals[0] ?? path.join(__dirname, '..'));
  const failures = [];
  const pkg = require(path.join(dir, 'package.json'));
  const { backend, mask, unmask } = require(dir);
  // The loaded addon's path, from lib/tiers/native.js: the module instance index.js took the addon from.
  const file = ['wasm', 'js'].includes(backend) ? 'none' : require(path.join(dir, 'lib', 'tiers', 'native.js')).file;
  const best = values.level ?? expectedNativeLevel(Number.POSITIVE_INFINITY);
  if (process.env.BUFFERUTIL_SIMD_LEVEL)
    failures.push(`BUFFERUTIL_SIMD_LEVEL=${process.env.BUFFERUTIL_SIMD_LEVEL} caps the level`);
  if (best !== undefined && backend !== best) failures.push(`backend is ${backend}; this CPU's widest level is ${best}`);
  // Only x64 without /proc/cpuinfo leaves `best` unknown (arm64 is always NEON).
  if (best === undefined && !['sse2', 'avx2', 'avx512'].includes(backend))
    failures.push(`backend is ${backend}, not an x64 SIMD level`);
  if (values.installed && !new RegExp(`node_modules[\\\\/]+${pkg.name}-[^\\\\/]+[\\\\/]`).test(file))
    failures.push(`the addon is not from an installed ${pkg.name}-<platform> package: ${file}`);
  // 1000 bytes masked at offset 6 of another buffer, and unmasked in place, against a byte loop.
  const source = Uint8Array.from({ length: 1000 }, (_, i) => (i * 131 + 7) & 255);
  const key = Uint8Array.of(0x12, 0x34, 0x56, 0x78);
  const expected = source.map((byte, i) => byte ^ key[i & 3]);
  const framed = new Uint8Array(1006);
  mask(source, key, framed, 6, source.length);
  const inPlace = source.slice();
  unmask(inPlace, key);
  if (!framed.subarray(6).every((byte, i) => byte === expected[i])) failures.push('mask wrote wrong bytes');
  if (!inPlace.every((byte, i) => byte === expected[i])) failures.push('unmask wrote wrong bytes');
  console.log(
    `smoke: ${dir} ${pkg.version} on ${process.platform}-${process.arch}, Node ${process.version}: backend ${backend}, addon ${file}`
  );
  for (const failure of failures) console.error(`smoke: FAILED: ${failure}`);
  if (failures.length) process.exitCode = 1;
  else console.log('smoke: passed');
}
