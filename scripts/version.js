'use strict';

// package.json's `version` script (`npm version`): writes the new version, and Cargo.toml's addon-interface,
// into lib/version.js, the copy the loader compares addons with; the version into Cargo.toml and Cargo.lock,
// every npm/<platform> package, and every `bufferutil-simd@X.Y.Z` and `@^X.Y.Z` of README.md and docs/.

const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const { version } = require('../package.json');
const DOCS = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).map((name) => `docs/${name}`)];
const NAMED = /(bufferutil-simd@\^?)\d+\.\d+\.\d+/g;
/** Replaces `pattern`'s one match in `file` (relative to the root) with `replacement`. */
const edit = (file, pattern, replacement) => {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  if (!pattern.test(text)) throw new Error(`no ${pattern} in ${file}`);
  fs.writeFileSync(path.join(root, file), text.replace(pattern, replacement));
};
edit('lib/version.js', /version: '[^']*'/, `version: '${version}'`);
const [, addonInterface] = /^addon-interface = (\d+)$/m.exec(fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8'));
edit('lib/version.js', /addonInterface: \d+/, `addonInterface: ${addonInterface}`);
edit('Cargo.toml', /^version = "[^"]*"/m, `version = "${version}"`);
edit('Cargo.lock', /(name = "bufferutil-simd"\nversion = )"[^"]*"/, `$1"${version}"`);
for (const file of DOCS.map((doc) => path.join(root, doc)))
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(NAMED, `$1${version}`));
for (const platform of fs.readdirSync(path.join(root, 'npm')))
  edit(`npm/${platform}/package.json`, /"version": "[^"]*"/, `"version": "${version}"`);
console.log(`lib/version.js, Cargo.toml, Cargo.lock, npm/*/package.json and the docs: ${version}`);
