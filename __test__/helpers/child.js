'use strict';

// The suites' one way to run a child: this runtime on a script, in the package's folder unless `cwd` says.

const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('node:child_process');
const { createInterface } = require('node:readline');
const { ROOT } = require('./implementations');

/** In `cwd`, this environment with NODE_OPTIONS emptied (`clean`: no BUFFERUTIL_SIMD_* or NODE_DEBUG either), `env` added. */
function where({ cwd = ROOT, env = {}, clean = false }) {
  const inherited = Object.entries(process.env).filter(([name]) => !clean || !/^(BUFFERUTIL_SIMD_|NODE_DEBUG$)/.test(name));
  return { cwd, env: { ...Object.fromEntries(inherited), NODE_OPTIONS: '', ...env } };
}

/** `node [args] -e script`: spawnSync's result. */
const spawnNode = (script, { args = [], ...options } = {}) =>
  spawnSync(process.execPath, [...args, '-e', script], { ...where(options), encoding: 'utf8', timeout: 120_000 });

/** Its stdout, once it exits cleanly (a crash fails one test). */
function runNode(script, options) {
  const run = spawnNode(script, options);
  assert.deepEqual([run.signal, run.status], [null, 0], `ended by ${run.signal ?? `exit ${run.status}`}: ${run.stderr}`);
  return run.stdout;
}

const runJSON = (script, options) => JSON.parse(runNode(script, options));

/** `node ...args`, `onLine(line, child)` called at each line it prints: how it ended and its stderr (SIGKILL at `timeout`). */
function spawnLines(args, { onLine, timeout = 120_000, ...options }) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { ...where(options), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    createInterface({ input: child.stdout }).on('line', (line) => onLine(line, child));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

/** ['--js-immutable-arraybuffer'] where V8 takes it and then has immutable ArrayBuffers (Node 26), else []. */
let immutable;
function immutableArgs() {
  immutable ??= spawnNode('new ArrayBuffer(1).transferToImmutable()', { args: ['--js-immutable-arraybuffer'] }).status === 0;
  return immutable ? ['--js-immutable-arraybuffer'] : [];
}

module.exports = { spawnNode, runNode, runJSON, spawnLines, immutableArgs };
