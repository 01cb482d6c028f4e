'use strict';

// What the scripts that run the suite from an installed package share (test-platform-package.js under
// qemu and musl, test-windows.js under Wine, test-node-lines.js): the app they install into, and how they
// report a TAP stream's failures.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '../..');
const { name } = require('../../package.json');

function unpack(tarball, into) {
  fs.mkdirSync(into, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', into, '--strip-components=1']);
}

/**
 * A throwaway app with the packed root package and `platformPackage` unpacked into its node_modules as npm
 * would lay them out (npm itself refuses a package for another CPU, libc or OS), and this repo's
 * __test__ copied into the installed package, so that `require('..')` there is the installed index.js.
 * Returns `{ app, installed }`.
 */
function installedApp(packages, platformPackage, label) {
  const app = fs.mkdtempSync(path.join(os.tmpdir(), `bufferutil-simd-${label}-`));
  const installed = path.join(app, 'node_modules', name);
  unpack(packages.main, installed);
  unpack(packages.platforms[platformPackage], path.join(app, 'node_modules', platformPackage));
  fs.cpSync(path.join(root, '__test__'), path.join(installed, '__test__'), {
    recursive: true,
    filter: (source) => !/__test__\/(integration|results|types)$/.test(source),
  });
  return { app, installed };
}

/** The failing tests of a TAP stream: each `not ok` line with the error line under it. */
function tapFailures(text) {
  const lines = text.split('\n');
  const found = [];
  lines.forEach((line, i) => {
    if (!/^\s*not ok /.test(line)) return;
    const error = lines.slice(i + 1, i + 12).find((next) => /^\s+error: /.test(next));
    found.push(`${line.trim()}${error ? ` (${error.trim().slice(0, 200)})` : ''}`);
  });
  return found;
}

module.exports = { installedApp, tapFailures };
