'use strict';

// Runs the package's test suite in a Node that is not this one (an arm64 Node under qemu-user, a musl Node),
// against the packages as a user gets them: the root tarball and one platform tarball from
// `node scripts/pack-platforms.js`, unpacked into an app's node_modules as npm would (npm itself refuses a package
// for another CPU or libc). The suite's files are copied into the installed package, so `require('..')` is
// the installed index.js and the addon comes from the platform package.
//
// First the conformance subset of scripts/test-runtimes.js and the backend, which must be the one expected
// (a silent fallback to JavaScript fails), then `node --test` over the suite's files.
//
//   node scripts/test-platform-package.js --packages DIR --platform linux-arm64-gnu --node BIN
//        --backend neon [--qemu aarch64] [--files mask,levels,...]   (default: every __test__/*.test.js)
//
// --qemu aarch64 runs that Node under qemu-user, registered for aarch64 executables with binfmt_misc inside
// a private user and mount namespace (Linux 6.7 or later), so the child processes the suite starts are
// emulated too; nothing is registered for the rest of the machine. QEMU_LD_PREFIX (the aarch64 glibc
// sysroot) passes through.

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { conformance } = require('./test-runtimes');
const { installedApp } = require('./lib/installed');

const root = path.resolve(__dirname, '..');
const { name } = require('../package.json');

const QEMU = {
  // The kernel's binfmt_misc rule for 64-bit little-endian ELF executables and shared objects of e_machine 183.
  aarch64: {
    magic: '\\x7f\\x45\\x4c\\x46\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00',
    mask: '\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff',
  },
};

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) args[argv[i].replace(/^--/, '')] = argv[i + 1];
  for (const required of ['packages', 'platform', 'node', 'backend']) {
    if (!args[required]) throw new Error(`missing --${required}`);
  }
  return args;
}

/** The command that runs `node` (under qemu with binfmt in a private namespace, for --qemu). */
function launcher(node, qemu) {
  if (!qemu) return [node];
  const { magic, mask } = QEMU[qemu];
  const interpreter = execFileSync('sh', ['-c', `command -v qemu-${qemu}`], { encoding: 'utf8' }).trim();
  const rule = `:bufferutil-simd-${qemu}:M::${magic}:${mask}:${interpreter}:F`;
  const script = [
    'set -e',
    'mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc',
    `printf '%s' '${rule}' > /proc/sys/fs/binfmt_misc/register`,
    'exec "$@"',
  ].join('\n');
  return ['unshare', '--user', '--map-root-user', '--mount', 'sh', '-c', script, 'sh', node];
}

const PROBE = `
const path = require('path');
const bufferUtil = require('${name}');
const native = require(path.join(path.dirname(require.resolve('${name}')), 'lib', 'native.js'));
console.log(JSON.stringify({ runtime: process.version + ' ' + process.arch, backend: bufferUtil.backend, native: native.backend,
  addon: native.file }));
console.log(JSON.stringify({ failures: require('./conformance.cjs')([['module', bufferUtil], ['addon', native]]) }));
`;

function main() {
  const args = parseArgs(process.argv.slice(2));
  const packages = JSON.parse(fs.readFileSync(path.join(args.packages, 'packages.json'), 'utf8'));
  const platformPackage = `${name}-${args.platform}`;
  if (!packages.platforms[platformPackage]) throw new Error(`${args.packages} has no ${platformPackage} tarball`);
  // Every suite file by default, as `npm test` runs them (huge.test.js skips itself unless asked for).
  const names =
    args.files?.split(',').map((file) => `${file}.test.js`) ??
    fs
      .readdirSync(path.join(root, '__test__'))
      .filter((file) => file.endsWith('.test.js'))
      .sort();
  const files = names.map((file) => `__test__/${file}`);
  const command = launcher(args.node, args.qemu);
  const env = { ...process.env };
  delete env.BUFFERUTIL_SIMD_LEVEL;
  delete env.NODE_OPTIONS;

  const { app, installed } = installedApp(packages, platformPackage, args.platform);
  try {
    fs.writeFileSync(path.join(app, 'conformance.cjs'), `'use strict';\nmodule.exports = ${conformance.toString()};\n`);
    fs.writeFileSync(path.join(app, 'probe.cjs'), PROBE);

    const started = Date.now();
    const probe = spawnSync(command[0], [...command.slice(1), 'probe.cjs'], { cwd: app, env, encoding: 'utf8' });
    const report = { failures: [] };
    for (const line of probe.stdout.split('\n')) if (line.startsWith('{')) Object.assign(report, JSON.parse(line));
    if (probe.status !== 0)
      report.failures.push(`probe exited ${probe.status}: ${probe.stderr.trim().split('\n').slice(0, 3).join(' | ')}`);
    console.log(
      `${args.platform}: node ${report.runtime ?? '?'}, backend ${report.backend ?? '?'} (addon ${report.native ?? '?'}), ${path.relative(app, report.addon ?? '?')}`
    );
    if (report.backend !== args.backend || report.native !== args.backend) {
      report.failures.unshift(`expected backend ${args.backend}, got ${report.backend} (addon: ${report.native})`);
    }
    for (const failure of report.failures) console.log(`    ${failure}`);
    console.log(
      `${args.platform}: conformance subset ${report.failures.length ? 'FAILED' : 'passed'} in ${((Date.now() - started) / 1000).toFixed(1)} s`
    );
    if (report.failures.length) return 1;

    const suiteStarted = Date.now();
    const suite = spawnSync(command[0], [...command.slice(1), '--test', '--test-reporter=spec', ...files], {
      cwd: installed,
      env,
      stdio: 'inherit',
    });
    console.log(
      `${args.platform}: ${files.join(' ')}: exit ${suite.status} in ${((Date.now() - suiteStarted) / 1000).toFixed(1)} s`
    );
    return suite.status === 0 ? 0 : 1;
  } finally {
    if (!process.env.KEEP_TEMP) fs.rmSync(app, { recursive: true, force: true });
  }
}

process.exitCode = main();
