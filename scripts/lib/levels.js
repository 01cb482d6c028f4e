'use strict';

// The SIMD level the addon should pick on this CPU, worked out from the CPU itself rather than from what
// the addon reports: for the suite, the cross runner and the release's smoke test.

const fs = require('node:fs');

const RANKS = { scalar: 0, sse2: 1, neon: 1, avx2: 2, avx512: 3 };

/**
 * The level the addon should run at here: the widest this CPU has (from /proc/cpuinfo on Linux), capped by
 * BUFFERUTIL_SIMD_LEVEL; undefined where the CPU cannot be read.
 */
function expectedNativeLevel(cap = process.env.BUFFERUTIL_SIMD_LEVEL) {
  let levels;
  if (process.arch === 'arm64') {
    levels = ['scalar', 'neon'];
  } else if (process.arch === 'x64') {
    let flags;
    try {
      flags = new Set(/^flags\s*:(.*)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))[1].trim().split(/\s+/));
    } catch {
      return undefined;
    }
    levels = ['scalar', 'sse2'];
    if (flags.has('avx2')) levels.push('avx2');
    if (flags.has('avx512f') && flags.has('avx512bw')) levels.push('avx512');
  } else {
    return undefined;
  }
  const limit = RANKS[String(cap).trim().toLowerCase()] ?? Infinity;
  return levels.filter((level) => RANKS[level] <= limit).pop();
}

module.exports = { expectedNativeLevel };
