'use strict';

// Running a test process in another runtime and reading what it says: its output to a log file (Wine's
// console gives a Windows process whose stdout is a pipe EBADF), the JSON reports of lib/probe.cjs, and the
// totals and failures of a `node --test --test-reporter=tap` run.

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

/** This environment without what would change the run: a level cap, or a flag one Node takes and another refuses. */
function cleanEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  delete env.BUFFERUTIL_SIMD_LEVEL;
  delete env.NODE_OPTIONS;
  return env;
}

/** Runs `command` with stdout and stderr to the file `log`; returns the exit status and the log's text. */
function runLogged(command, args, { cwd, env = cleanEnv(), log, timeout }) {
  fs.mkdirSync(path.dirname(log), { recursive: true });
  const out = fs.openSync(log, 'w');
  const run = spawnSync(command, args, { cwd, env, timeout, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  if (run.error && run.error.code !== 'ETIMEDOUT') throw run.error;
  return { status: run.status ?? run.signal, text: fs.readFileSync(log, 'utf8') };
}

/** The JSON lines of a run's output (lib/probe.cjs's reports). */
const reportsOf = (text) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));

/** The last lines of a run's output, on one line. */
const tail = (text, lines = 3) => text.trim().split('\n').slice(-lines).join(' | ');

/** Copies lib/probe.cjs and lib/conformance.cjs into `dir`. */
function copyProbe(dir) {
  for (const file of ['probe.cjs', 'conformance.cjs']) fs.copyFileSync(path.join(__dirname, file), path.join(dir, file));
}

/**
 * Prints a TAP run's totals (`label`, time since `started`), its failing tests and every skip's reason (a
 * skip must say why); returns whether it passed: exit 0, no failure, some tests.
 */
function tapSummary(label, { status, text }, log, started) {
  const counts = {};
  for (const [, key, value] of text.matchAll(/^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) counts[key] = Number(value);
  const ok = status === 0 && counts.fail === 0 && counts.tests > 0;
  const tally = `${counts.pass ?? '?'} pass, ${counts.fail ?? '?'} fail, ${counts.skipped ?? '?'} skipped, ${counts.cancelled ?? 0} cancelled`;
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(`${label}: ${tally} in ${seconds} s: ${ok ? 'pass' : `FAIL (exit ${status})`}`);
  if (!ok) {
    const lines = text.split('\n');
    const failing = lines.flatMap((line, i) => {
      if (!/^\s*not ok /.test(line)) return [];
      const error = lines.slice(i + 1, i + 12).find((next) => /^\s+error: /.test(next));
      return [`${line.trim()}${error ? ` (${error.trim().slice(0, 200)})` : ''}`];
    });
    for (const failure of failing.slice(0, 20)) console.log(`    ${failure}`);
    console.log(`    full output: ${path.relative(process.cwd(), log)}`);
  }
  const skips = new Map();
  for (const [, reason] of text.matchAll(/# SKIP (.*)$/gm)) skips.set(reason, (skips.get(reason) ?? 0) + 1);
  for (const [reason, count] of skips) console.log(`    skipped ${count}: ${reason}`);
  return ok;
}

module.exports = { cleanEnv, runLogged, reportsOf, tail, copyProbe, tapSummary };
