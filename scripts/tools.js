'use strict';

// Maintainer tools that need Node ≥ 22, kept out of devDependencies so `npm install` on Node 18 and 20 stays
// clean: the napi-rs CLI (cross builds, the release's platform packages), pinned by tools/package.json and
// installed on first use into tools/node_modules.
//
//   node scripts/tools.js napi build --target aarch64-unknown-linux-gnu   runs a tool's command

const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const TOOLS = path.join(__dirname, '..', 'tools');
const manifest = require(path.join(TOOLS, 'package.json'));

const installed = (name) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(TOOLS, 'node_modules', name, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
};

/** Installs the pinned tools if any is missing or at another version; returns the tools folder. */
function ensureTools() {
  const stale = Object.entries(manifest.dependencies).filter(([name, version]) => installed(name)?.version !== version);
  if (stale.length) {
    process.stderr.write(
      `installing maintainer tools into ${TOOLS}: ${stale.map(([name, version]) => `${name}@${version}`).join(', ')}\n`
    );
    const options = { cwd: TOOLS, stdio: ['ignore', process.stderr, 'inherit'], shell: process.platform === 'win32' };
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], options);
  }
  return TOOLS;
}

module.exports = { ensureTools };

if (require.main === module) {
  const [name, ...args] = process.argv.slice(2);
  if (!name) throw new Error('usage: node scripts/tools.js COMMAND [ARGS...]   (for example: napi build --help)');
  ensureTools();
  const dependency = Object.keys(manifest.dependencies).find((dep) => {
    const { bin } = installed(dep) ?? {};
    return typeof bin === 'string' ? dep.split('/').pop() === name : bin?.[name];
  });
  if (!dependency) throw new Error(`no tool in tools/package.json has a command named ${name}`);
  const { bin } = installed(dependency);
  const file = path.join(TOOLS, 'node_modules', dependency, typeof bin === 'string' ? bin : bin[name]);
  process.exitCode = spawnSync(process.execPath, [file, ...args], { stdio: 'inherit' }).status ?? 1;
}
