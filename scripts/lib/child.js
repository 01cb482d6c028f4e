'use strict';

// Running a test process in another runtime and reading what it says: its output to a log file (Wine's
// console gives a Windows process whose stdout is a pipe EBADF), and the totals and failures of a test run.

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

/** This environment without what would change the run: a level cap, or a flag one Node takes and another refuses. */
function cleanEnv(extra = {}) {
  const { BUFFERUTIL_SIMD_LEVEL, NODE_OPTIONS, ...env } = process.env;
  return { ...env, ...extra };
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

/** The last lines of a run's output, on one line. */
const tail = (text, lines = 3) => text.trim().split('\n').slice(-lines).join(' | ');

/** A run's totals as `node --test --test-reporter=tap` (`# pass 3`), `bun test` (` 3 pass`) or `deno test` print them. */
function totals(text) {
  const counts = {};
  for (const [, key, value] of text.matchAll(/^# (tests|pass|fail|cancelled|skipped) (\d+)$/gm)) counts[key] = Number(value);
  for (const [, value, key] of text.matchAll(/^ (\d+) (pass|fail|skip)$/gm))
    counts[key.replace('skip', 'skipped')] = Number(value);
  const deno = /^(?:ok|FAILED) \| (\d+) passed.*? \| (\d+) failed(?: \| (\d+) ignored)?/m.exec(text);
  if (deno) [counts.pass, counts.fail, counts.skipped] = deno.slice(1).map((n) => Number(n ?? 0));
  counts.tests ??= (counts.pass ?? 0) + (counts.fail ?? 0) + (counts.skipped ?? 0);
  return counts;
}

/** Prints a test run's totals (`label`, time since `started`), its failing tests and every skip's reason; returns
 * whether it passed: exit 0, no failure, some tests. */
function testSummary(label, { status, text }, log, started) {
  const counts = totals(text);
  const ok = status === 0 && counts.fail === 0 && counts.tests > 0;
  const tally = `${counts.pass ?? '?'} pass, ${counts.fail ?? '?'} fail, ${counts.skipped ?? '?'} skipped, ${counts.cancelled ?? 0} cancelled`;
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(`${label}: ${tally} in ${seconds} s: ${ok ? 'pass' : `FAIL (exit ${status})`}`);
  if (!ok) {
    const lines = text.split('\n');
    const failing = lines.flatMap((line, i) => {
      if (!/^\s*not ok |^\(fail\) | \.\.\. FAILED/.test(line)) return [];
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

module.exports = { cleanEnv, runLogged, tail, testSummary };
