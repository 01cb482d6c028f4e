'use strict';

// `npm version` runs this (the `version` script): writes package.json's new version into lib/version.js,
// the copy the loader compares platform packages with (lib/native.js), and stages it for npm's commit.
// __test__/loader.test.js fails wherever the two differ.

const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const file = path.join(root, 'lib', 'version.js');
const text = fs.readFileSync(file, 'utf8');
const updated = text.replace(/version: '[^']*'/, `version: '${version}'`);
if (updated === text && !text.includes(`'${version}'`)) throw new Error(`no \`version: '…'\` in ${file}`);
fs.writeFileSync(file, updated);
console.log(`lib/version.js: ${version}`);
