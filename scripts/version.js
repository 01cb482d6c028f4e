'use strict';

// package.json's `version` script (`npm version`): writes the new version into lib/version.js, the copy the
// loader compares platform packages with, and into every npm/<platform> package.

const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const { version } = require('../package.json');
const file = path.join(root, 'lib', 'version.js');
const text = fs.readFileSync(file, 'utf8');
if (!/version: '[^']*'/.test(text)) throw new Error(`no \`version: '…'\` in ${file}`);
fs.writeFileSync(file, text.replace(/version: '[^']*'/, `version: '${version}'`));
for (const platform of fs.readdirSync(path.join(root, 'npm'))) {
  const manifestFile = path.join(root, 'npm', platform, 'package.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  fs.writeFileSync(manifestFile, `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
}
console.log(`lib/version.js and npm/*/package.json: ${version}`);
