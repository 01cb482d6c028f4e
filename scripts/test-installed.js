'use strict';

// `node scripts/test-installed.js DIR`: the release's tarballs in DIR (pack-platforms.js's) from a local registry;
// `npm install bufferutil-simd` in an empty project must pick this platform's package, scripts/smoke.js, `import` by
// name and `npx bufferutil-simd --require-native` must find its addon, then the suite runs in the installed package.

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { rootManifest, tempDir, userProject, copySuite, npmInstall } = require('./lib/packages');
const { startRegistry } = require('./lib/registry');
const { cleanEnv } = require('./lib/child');

const { name, version } = rootManifest;

/** Runs `command args` in `cwd` with the output shown and no level cap; returns its exit status (1 if killed). */
const run = (command, args, cwd, shell = false) =>
  spawnSync(command, args, { cwd, env: cleanEnv(), stdio: 'inherit', shell }).status ?? 1;
const node = (args, cwd) => run(process.execPath, args, cwd);

async function main(dir) {
  const tarballs = fs.readdirSync(dir).filter((file) => file.startsWith(`${name}-`) && file.endsWith(`-${version}.tgz`));
  if (!tarballs.includes(`${name}-${version}.tgz`))
    throw new Error(`no ${name}-${version}.tgz in ${dir} (node scripts/pack-platforms.js makes it)`);
  const registry = await startRegistry(tarballs.map((file) => path.join(dir, file)));
  const work = tempDir(`${name}-installed-`);
  try {
    const app = userProject(work, 'app');
    const { stdout, stderr } = await npmInstall(app, registry.url, [`${name}@${version}`]);
    console.log(stdout + stderr);
    const installed = path.join(app, 'node_modules', name);
    const platforms = fs.readdirSync(path.join(app, 'node_modules')).filter((entry) => entry.startsWith(`${name}-`));
    console.log(`test-installed: npm installed ${name} and [${platforms.join(', ')}] from ${tarballs.length} tarballs`);
    process.exitCode = node([path.join(__dirname, 'smoke.js'), installed, '--installed'], app);
    // By name, as a user reaches it: `import` through the exports map, and the bin npm linked.
    const script = `import m from '${name}'; process.exitCode = ['wasm', 'js'].includes(m.backend) ? 1 : 0;`;
    process.exitCode ||=
      node(['--input-type=module', '-e', script], app) ||
      run('npx', ['--no-install', name, '--require-native'], app, process.platform === 'win32');
    if (process.exitCode !== 0) return;
    copySuite(installed);
    process.exitCode = node([path.join('scripts', 'test-js.js')], installed);
  } finally {
    await registry.close();
    if (!process.env.KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv.length !== 3) throw new Error('usage: node scripts/test-installed.js DIR');
main(path.resolve(process.argv[2])); // a rejection exits 1 with its stack
