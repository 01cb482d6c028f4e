'use strict';

// zizmor, the static analyser for GitHub Actions, over .github/workflows/ without network access; fails on
// any finding. The version is scripts/lib/runtimes.js's ZIZMOR, installed from PyPI into the tools cache on
// first use. .ci/run and the release's checks job run it.
//
//   node scripts/zizmor.js [ZIZMOR_ARGS...]

const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { zizmorTool } = require('./lib/runtimes');

const zizmor = zizmorTool();
const args = ['--offline', ...process.argv.slice(2), '.github/workflows/'];
console.error(`zizmor: ${zizmor} ${args.join(' ')}`);
const { status } = spawnSync(zizmor, args, { cwd: path.join(__dirname, '..'), stdio: 'inherit' });
process.exitCode = status ?? 1;
