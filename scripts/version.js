'use strict';

// `npm version` runs this (the `version` script): writes package.json's new version into lib/version.js,
// the copy the loader compares platform packages with (lib/addon.js), and into every npm/<platform>
// package, and stages them for npm's commit. __test__/loader.test.js and __test__/integration/pack.js fail
// wherever they differ.

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
for (const platform of fs.readdirSync(path.join(root, 'npm'))) {
  const manifestFile = path.join(root, 'npm', platform, 'package.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  fs.writeFileSync(manifestFile, `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
  console.log(`npm/${platform}/package.json: ${version}`);
}
