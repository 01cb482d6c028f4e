'use strict';

// `npm test`'s JavaScript half: every `__test__/*.test.js` under this Node's test runner. The files are
// listed here because `node --test DIR` finds nothing on Node 22+ (it takes files or globs there), Node
// 18/20 expand no globs themselves and Windows shells expand none either. Extra arguments (for example
// `--test-reporter=tap`) go to `node --test`.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const dir = path.join(__dirname, '..', '__test__');
const files = fs
  .readdirSync(dir)
  .filter((name) => name.endsWith('.test.js'))
  .sort()
  .map((name) => path.join(dir, name));

const run = spawnSync(process.execPath, ['--test', ...process.argv.slice(2), ...files], { stdio: 'inherit' });
if (run.error) throw run.error;
process.exitCode = run.status ?? 1;
