'use strict';

// Facts about the machine and build a result came from, for the JSON beside every measurement.

const { execFileSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

// CPU flags that change which kernel runs or how fast memory moves.
const SIMD_FLAGS = [
  'sse2', 'ssse3', 'sse4_1', 'sse4_2', 'avx', 'avx2', 'bmi2',
  'avx512f', 'avx512bw', 'avx512vl', 'avx512dq', 'avx512vbmi', 'erms', 'fsrm', 'asimd', 'sve',
];

function cpuFacts() {
  let cpuinfo = '';
  try {
    cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  } catch {}
  const field = (name) => (cpuinfo.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm')) || [])[1];
  const flags = new Set((field('flags') || field('Features') || '').split(/\s+/));
  return {
    model: field('model name') || os.cpus()[0]?.model || 'unknown',
    logicalCores: os.availableParallelism ? os.availableParallelism() : os.cpus().length,
    simdFlags: SIMD_FLAGS.filter((flag) => flags.has(flag)),
  };
}

/**
 * Which cargo profile produced the addon: the artifact under target/ with the same bytes (napi build
 * copies it), else unknown (built elsewhere, or target/ rebuilt since).
 */
function addonFacts(root, addonPath) {
  const bytes = fs.readFileSync(addonPath);
  const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  let profile = 'unknown';
  const target = path.join(root, 'target');
  const candidates = [];
  try {
    for (const triple of ['', ...fs.readdirSync(target)]) {
      for (const name of ['release', 'debug']) candidates.push([name, path.join(target, triple, name, 'libbufferutil_simd.so')]);
    }
  } catch {}
  for (const [name, file] of candidates) {
    try {
      if (crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex') === sha256) {
        profile = name;
        break;
      }
    } catch {}
  }
  return { file: path.relative(root, addonPath), sha256, builtAt: fs.statSync(addonPath).mtime.toISOString(), profile };
}

function machineFacts() {
  return {
    cpu: cpuFacts(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    v8: process.versions.v8,
  };
}

/** The commit the working tree is at, and whether it had changes (results of a dirty tree are not that commit's). */
function sourceFacts(root) {
  const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trimEnd();
  try {
    const changed = git('status', '--porcelain', '--untracked-files=no').split('\n').filter(Boolean);
    return { commit: git('rev-parse', 'HEAD'), changedFiles: changed.map((line) => line.slice(3)) };
  } catch {
    return { commit: 'unknown' };
  }
}

function versionOf(name) {
  return require(`${name}/package.json`).version;
}

/**
 * The fields every saved result starts with: what ran, where, on which build, and which versions of the
 * packages it was compared with (`extra` names more of them, such as mitata).
 */
function runFacts({ schema, quick, started, runtime, source, info, addon, extra = [] }) {
  const versions = {};
  for (const name of [...extra, 'bufferutil', 'ws']) versions[name] = versionOf(name);
  return {
    schema,
    mode: quick ? 'quick' : 'full',
    date: new Date().toISOString(),
    durationSeconds: Math.round((Date.now() - started) / 1e3),
    runtime,
    machine: machineFacts(),
    source,
    bufferutilSimd: { ...info, addonPath: undefined, addon },
    versions,
  };
}

module.exports = { machineFacts, addonFacts, sourceFacts, versionOf, runFacts };
