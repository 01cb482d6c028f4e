'use strict';

// `node scripts/zizmor.js [ZIZMOR_ARGS...]`: zizmor, the GitHub Actions linter, over .github/workflows/
// without network access, at the version ZIZMOR pins (from PyPI, into the tools cache); fails on any finding.

const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { pipped } = require('./lib/runtimes');

const ZIZMOR = 'zizmor==1.32.0';
const zizmor = pipped(ZIZMOR.replace('==', '-'), 'bin/zizmor', [ZIZMOR]);
const args = ['--offline', ...process.argv.slice(2), '.github/workflows/'];
console.error(`zizmor: ${zizmor} ${args.join(' ')}`);
process.exitCode = spawnSync(zizmor, args, { cwd: path.join(__dirname, '..'), stdio: 'inherit' }).status ?? 1;
