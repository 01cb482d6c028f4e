'use strict';

const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { ROOT } = require('./implementations');

/** `node [args] -e script` in the package's folder with `env` added (a crash fails one test): its stdout, once it exits cleanly. */
function runNode(script, { args = [], env = {} } = {}) {
  const run = spawnSync(process.execPath, [...args, '-e', script], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.signal, null, `killed by ${run.signal}: ${run.stderr}`);
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

const runJSON = (script, options) => JSON.parse(runNode(script, options));

module.exports = { runNode, runJSON };
