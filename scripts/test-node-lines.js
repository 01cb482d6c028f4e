'use strict';

// `node scripts/test-node-lines.js [18 22 ...]`: `npm test`'s JavaScript half (scripts/test-js.js) under each
// Node line the package supports (default: all), each from the npm registry (scripts/lib/runtimes.js), against
// the one addon built here (Node-API is ABI-stable). TAP logs go to target/test-node-lines/; exits 1 if any
// line fails.

const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { NODE_LINES, ensureNode } = require('./lib/runtimes');
const { runLogged, tapSummary } = require('./lib/child');

const root = path.join(__dirname, '..');

function main() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.log(
      `skipped: the Node binaries from npm used here are linux-x64 builds; this is ${process.platform}-${process.arch}`
    );
    return;
  }
  const wanted = process.argv.slice(2).map(Number);
  const unknown = wanted.filter((major) => !NODE_LINES.includes(major));
  if (unknown.length) throw new Error(`unsupported Node line(s) ${unknown.join(', ')}; supported: ${NODE_LINES.join(', ')}`);
  const lines = wanted.length ? wanted : NODE_LINES;
  let failed = 0;
  for (const major of lines) {
    const bin = ensureNode(major);
    const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
    const log = path.join(root, 'target', 'test-node-lines', `node-${major}.tap`);
    const started = Date.now();
    const run = runLogged(bin, [path.join(__dirname, 'test-js.js'), '--test-reporter=tap'], { cwd: root, log });
    if (!tapSummary(`node ${version}`, run, log, started)) failed++;
  }
  console.log(`${lines.length - failed} of ${lines.length} Node lines passed`);
  process.exitCode = failed ? 1 : 0;
}

main();
