'use strict';

// Maintainer tools that need a newer Node (≥ 22) than the package supports, kept out of its
// devDependencies so that `npm install` on Node 18 and 20 stays clean: the napi-rs CLI (cross builds, the
// release's platform packages). tools/package.json pins it; it is installed on first use into
// tools/node_modules (ignored) from tools/package-lock.json.
//
// `node scripts/tools.js napi build --target aarch64-unknown-linux-gnu` (or `node scripts/tools.js napi ...`) runs a
// tool's command; `require('./scripts/tools').ensureTools()` returns the folder to import them from.

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
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], {
      cwd: TOOLS,
      stdio: ['ignore', process.stderr, 'inherit'],
      shell: process.platform === 'win32',
    });
  }
  return TOOLS;
}

/** Runs command `name` of one of the tools with `args`; returns its exit code. */
function run(name, args) {
  ensureTools();
  for (const dependency of Object.keys(manifest.dependencies)) {
    const { bin } = installed(dependency) ?? {};
    const file = typeof bin === 'string' && dependency.split('/').pop() === name ? bin : bin?.[name];
    if (file)
      return (
        spawnSync(process.execPath, [path.join(TOOLS, 'node_modules', dependency, file), ...args], { stdio: 'inherit' }).status ??
        1
      );
  }
  throw new Error(`no tool in tools/package.json has a command named ${name}`);
}

if (require.main === module) {
  const [name, ...args] = process.argv.slice(2);
  if (!name) throw new Error('usage: node scripts/tools.js COMMAND [ARGS...]   (for example: napi build --help)');
  process.exitCode = run(name, args);
}

module.exports = { ensureTools };
