'use strict';

// The release's tarballs as a user gets them, on the machine this runs on: a local registry serves them
// (scripts/lib/registry.js), `npm install bufferutil-simd` in an empty project picks this platform's package
// by os/cpu/libc, then scripts/smoke.js must find the addon from that package at this CPU's widest level,
// and the node:test suite (__test__/*.test.js, copied into the installed package) runs against it. The
// release's native test jobs run it on each platform's runner; .ci/run runs it on the linux-x64-gnu build.
//
//   node scripts/test-installed.js DIR   DIR: where pack-platforms.js put the tarballs

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { startRegistry, upstreamRegistry } = require('./lib/registry');
const { copySuite, npmInstall } = require('./lib/packages');
const { cleanEnv } = require('./lib/child');

const { name, version } = require('../package.json');

/** Runs `node args` in `cwd` with the output shown and no level cap; returns its exit status. */
const node = (args, cwd) => spawnSync(process.execPath, args, { cwd, env: cleanEnv(), stdio: 'inherit' }).status ?? 1;

async function main(dir) {
  const tarballs = fs
    .readdirSync(dir)
    .filter((file) => file.startsWith(`${name}-`) && file.endsWith(`-${version}.tgz`))
    .map((file) => path.join(dir, file));
  if (!tarballs.some((file) => path.basename(file) === `${name}-${version}.tgz`)) {
    throw new Error(`no ${name}-${version}.tgz in ${dir} (node scripts/pack-platforms.js makes it)`);
  }
  const registry = await startRegistry(tarballs, upstreamRegistry());
  const app = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-installed-`));
  try {
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
    const { stdout, stderr } = await npmInstall(app, registry.url, [`${name}@${version}`]);
    console.log(stdout + stderr);
    const installed = path.join(app, 'node_modules', name);
    const platforms = fs.readdirSync(path.join(app, 'node_modules')).filter((entry) => entry.startsWith(`${name}-`));
    console.log(`test-installed: npm installed ${name} and [${platforms.join(', ')}] from ${tarballs.length} tarballs`);

    if (node([path.join(__dirname, 'smoke.js'), installed, '--installed'], app) !== 0) return 1;
    copySuite(installed);
    return node([path.join('scripts', 'test-js.js')], installed);
  } finally {
    await registry.close();
    if (!process.env.KEEP_TEMP) fs.rmSync(app, { recursive: true, force: true });
  }
}

if (process.argv.length !== 3) {
  console.error('usage: node scripts/test-installed.js DIR');
  process.exitCode = 2;
} else {
  main(path.resolve(process.argv[2])).then(
    (status) => {
      process.exitCode = status;
    },
    (error) => {
      console.error(error);
      process.exitCode = 1;
    }
  );
}
