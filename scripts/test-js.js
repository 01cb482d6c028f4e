'use strict';

// `npm test`'s JavaScript half: `__test__/*.test.js`, or those named (`mask levels`), flags to `node --test`. Listed
// here: `node --test DIR` finds nothing on Node 22+, and Node 18/20 and Windows shells expand no globs.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const dir = path.join(__dirname, '..', '__test__');
const args = process.argv.slice(2);
const names = args.filter((arg) => !arg.startsWith('-')).map((name) => `${name}.test.js`);
const files = fs.readdirSync(dir).filter((file) => file.endsWith('.test.js') && (!names.length || names.includes(file)));
if (files.length < names.length) throw new Error(`no such test file among ${names.join(' ')} in ${dir}`);
const flags = args.filter((arg) => arg.startsWith('-'));
const paths = files.sort().map((file) => path.join(dir, file));
const run = spawnSync(process.execPath, ['--test', ...flags, ...paths], { stdio: 'inherit' });
if (run.error) throw run.error;
process.exitCode = run.status ?? 1;
