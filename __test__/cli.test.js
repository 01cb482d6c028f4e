'use strict';

// `npx bufferutil-simd` (bin/bufferutil-simd.js), run as a child process the way npx runs it: its report, the
// packages of a project that load a bufferutil, its benchmark's ratios, `--require-native`'s exit codes with and
// without the addon, and what a CI gate needs: only the project decides, and every failure is one line.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'bufferutil-simd.js');
const manifest = require('../package.json');
const NATIVE = /^(avx512|avx2|sse2|neon|scalar)$/;
const hasCore = typeof require('node:http').websocketMask === 'function';
/** The benchmark's columns besides the JS loop: bufferutil where its addon loads, core where Node has it. */
const compared = (bufferutil) => ['js', ...(bufferutil ? ['bufferutil'] : []), ...(hasCore ? ['core'] : [])];
const INSTALL = `npm install bufferutil@npm:${manifest.name}@^${manifest.version}`;
const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Where ws and bufferutil 4.1.0 are installed beside the package (a clone; not the installed layout). */
const PEERS = ['ws', 'bufferutil'].every((id) => fs.existsSync(path.join(ROOT, 'node_modules', id, 'package.json')))
  ? false
  : 'ws and bufferutil 4.1.0 are not installed beside the package here';

/** `bin`'s `{ status, stdout, stderr }`; `env` is added to a copy of this process's, without BUFFERUTIL_SIMD_LEVEL. */
function cli(args, { nodeArgs = [], env = {}, cwd = ROOT, bin = BIN, timeout } = {}) {
  const base = { ...process.env };
  delete base.BUFFERUTIL_SIMD_LEVEL;
  delete base.NODE_OPTIONS;
  const options = { cwd, env: { ...base, ...env }, encoding: 'utf8', timeout };
  const run = spawnSync(process.execPath, [...nodeArgs, bin, ...args], options);
  assert.equal(run.error, undefined);
  return run;
}

/** Writes `files` (path: text, or an object written as JSON) into `dir`; returns `dir`. */
function write(dir, files) {
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), typeof text === 'string' ? text : JSON.stringify(text));
  }
  return dir;
}

/** A temporary folder holding `files`, removed after test `t`. */
function tree(t, files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-cli-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return write(dir, files);
}

/** A copy of this package in `dir` (no addon beside it) with `changes` to its package.json. */
const copyOf = (dir, changes = {}) => {
  for (const entry of ['bin', 'lib', 'index.js']) fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...manifest, ...changes }));
  return dir;
};

/** A project whose `bufferutil` is a copy of this package, as `npm install bufferutil@npm:bufferutil-simd@^4.2.0` lays it out. */
function aliasedProject(t) {
  const dir = tree(t, { 'package.json': { name: 'app' } });
  copyOf(path.join(dir, 'node_modules', 'bufferutil'));
  return dir;
}

test('the manifest ships the bin as `bufferutil-simd`', () => {
  assert.equal(manifest.bin[manifest.name], 'bin/bufferutil-simd.js');
  assert.ok(manifest.files.includes('bin/'));
  assert.match(fs.readFileSync(BIN, 'utf8'), /^#!\/usr\/bin\/env node\n/);
});

test('the report, as text and --json: backend and addon file, core, the callers, a ratio and its range per op and size', {
  skip: PEERS,
}, () => {
  const run = cli(['--json', '--quick']);
  assert.equal(run.status, 0, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.match(report.backend, NATIVE);
  assert.ok(report.native && fs.existsSync(report.addon) && report.reason === null && report.websocketMask === hasCore);
  // ws 8.23, the devDependency, takes core's function where Node has it, else the original bufferutil beside it.
  const { ws, bufferutil } = manifest.devDependencies;
  const uses = hasCore ? 'core' : 'bufferutil';
  const wsCaller = { name: 'ws', version: ws, path: 'node_modules/ws', uses, bufferutil: 'node_modules/bufferutil' };
  assert.deepEqual([report.manager, report.consumers, report.unlisted], ['npm', [wsCaller], null]);
  assert.deepEqual(report.bufferutil, { name: 'bufferutil', version: bufferutil, path: 'node_modules/bufferutil' });
  assert.ok(report.cpu.length > 0 && report.bench.cpu === report.cpu && report.bench.rounds === 3);
  assert.deepEqual(
    report.bench.results.map(({ op, size }) => `${op} ${size}`),
    ['mask', 'unmask'].flatMap((op) => [64, 1024, 65536].map((size) => `${op} ${size}`))
  );
  for (const { ns, ratios, range, noisy } of report.bench.results) {
    assert.deepEqual(Object.keys(ratios), compared(true));
    for (const [id, [min, max]] of Object.entries(range)) assert.ok(min > 0 && min <= ratios[id] && ratios[id] <= max);
    assert.ok(Number.isFinite(ns) && ns > 0 && typeof noisy === 'boolean');
  }
  const text = cli(['--quick']).stdout;
  const head = `^${manifest.name} ${manifest.version} · Node v[\\d.]+ · ${process.platform}-${process.arch} · \\S`;
  assert.match(text, new RegExp(head));
  assert.match(text, new RegExp(`^backend +${report.backend}, the native addon: ${literal(report.addon)}$`, 'm'));
  assert.match(text, hasCore ? /^core +http\.websocketMask: ws >= 8\.22\.1 uses it/m : /^core +no http\.websocketMask/m);
  assert.match(text, /^callers +0 of 1 that require bufferutil load this package:$/m);
  const verdict = hasCore ? "uses core's http.websocketMask" : 'loads the original bufferutil, not this package';
  assert.match(text, new RegExp(`^  ws 8\\.\\d+\\.\\d+ \\(node_modules/ws\\): ${literal(verdict)}`, 'm'));
  if (!hasCore) assert.match(text, new RegExp(`^  to switch every caller \\(npm\\): ${literal(INSTALL)}$`, 'm'));
  // ns per call, then per column (÷ ws's JS loop, ÷ bufferutil, ÷ core where Node has it) the median (lowest-highest).
  const ratioCells = ' +\\d+\\.\\d\\d \\(\\d+\\.\\d\\d-\\d+\\.\\d\\d\\)'.repeat(compared(true).length);
  for (const row of ['64 B +mask', '1 KiB +mask', '64 KiB +mask', '64 B +unmask', '1 KiB +unmask', '64 KiB +unmask'])
    assert.match(text, new RegExp(`^${row} +[\\d.]+${ratioCells}$`, 'm'));
  assert.match(text, /^Median of 3 rounds \(lowest-highest\)\.$/m);
  // WebAssembly against the JS loop; bufferutil's own addon cannot load under --no-addons either: not compared.
  const noAddons = JSON.parse(cli(['--json', '--quick'], { nodeArgs: ['--no-addons'] }).stdout);
  assert.equal(noAddons.backend, 'wasm');
  for (const { ratios } of noAddons.bench.results) assert.deepEqual(Object.keys(ratios), compared(false));
});

// ws as its lib/buffer-util.js takes a bufferutil: 8.22.1 and later look for core's function first.
const wsFiles = (at, version, core) => ({
  [`${at}/package.json`]: { name: 'ws', version },
  [`${at}/lib/buffer-util.js`]: `${core ? "const { websocketMask } = require('http');\nif (websocketMask) {} else " : ''}if (!process.env.WS_NO_BUFFER_UTIL) {\n  const bufferUtil = require('bufferutil');\n}\n`,
});

test('this package aliased as bufferutil: named as such, not timed against itself; every package in the tree that requires bufferutil, nested or hoisted, and what it loads', (t) => {
  const dir = aliasedProject(t);
  const run = cli(['--json', '--quick'], { cwd: dir });
  assert.equal(run.status, 0, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.deepEqual(report.bufferutil, { name: manifest.name, version: manifest.version, path: 'node_modules/bufferutil' });
  assert.deepEqual(report.consumers, []);
  for (const { ratios } of report.bench.results) assert.deepEqual(Object.keys(ratios), compared(false));
  assert.match(cli(['--no-bench'], { cwd: dir }).stdout, /^callers +no package here requires bufferutil/m);
  // Callers of every kind, and a package that only names it.
  write(dir, {
    ...wsFiles('node_modules/ws', '8.23.1', true),
    ...wsFiles('node_modules/engine.io-client/node_modules/ws', '8.21.3', false),
    'node_modules/engine.io-client/package.json': { name: 'engine.io-client', version: '6.6.8' },
    'node_modules/websocket/package.json': { name: 'websocket', version: '1.0.35' },
    'node_modules/websocket/lib/WebSocketFrame.js': "var bufferUtil = require('bufferutil');",
    // A bundle with ws inside, and a package with a bufferutil of its own.
    'node_modules/@scope/bundled/package.json': { name: '@scope/bundled', version: '1.0.0' },
    'node_modules/@scope/bundled/lib/bundle.mjs': 'import * as bufferUtil from "bufferutil";',
    'node_modules/old/package.json': { name: 'old', version: '1.0.0' },
    'node_modules/old/index.cjs': 'require("bufferutil")',
    'node_modules/old/node_modules/bufferutil/package.json': { name: 'bufferutil', version: '4.0.1' },
    // Named, not required: not a caller.
    'node_modules/docs/package.json': { name: 'docs', version: '1.0.0' },
    'node_modules/docs/index.js': "module.exports = 'bufferutil';",
  });
  const callers = (env) => {
    const run = cli(['--json', '--no-bench'], { cwd: dir, env });
    assert.equal(run.status, 0, run.stderr);
    return Object.fromEntries(JSON.parse(run.stdout).consumers.map(({ path: at, ...rest }) => [at, rest]));
  };
  const caller = (name, version, uses, bufferutil = 'node_modules/bufferutil') => ({ name, version, uses, bufferutil });
  const expected = {
    'node_modules/@scope/bundled': caller('@scope/bundled', '1.0.0', manifest.name),
    'node_modules/engine.io-client/node_modules/ws': caller('ws', '8.21.3', manifest.name),
    'node_modules/old': caller('old', '1.0.0', 'bufferutil', 'node_modules/old/node_modules/bufferutil'),
    'node_modules/websocket': caller('websocket', '1.0.35', manifest.name),
    'node_modules/ws': caller('ws', '8.23.1', hasCore ? 'core' : manifest.name),
  };
  assert.deepEqual(callers(), expected);
  // ws's own switch turns its bufferutil off; WebSocket-Node reads no such switch.
  const off = callers({ WS_NO_BUFFER_UTIL: '1' });
  assert.equal(off['node_modules/engine.io-client/node_modules/ws'].uses, 'off');
  assert.equal(off['node_modules/ws'].uses, hasCore ? 'core' : 'off');
  assert.equal(off['node_modules/websocket'].uses, manifest.name);
  const text = cli(['--no-bench'], { cwd: dir }).stdout;
  assert.match(text, new RegExp(`^callers +${hasCore ? 3 : 4} of 5 that require bufferutil load this package:$`, 'm'));
  assert.match(text, /^ {2}websocket 1\.0\.35 \(node_modules\/websocket\): loads this package$/m);
  assert.match(text, /^ {2}old 1\.0\.0 \(node_modules\/old\): loads the original bufferutil, not this package/m);
});

test('a CI gate: the project alone decides, its copy is checked and only its entry runs, nothing prints a control character', (t) => {
  const dir = tree(t, { 'package.json': { name: 'app' } });
  const ran = (file) => `require('fs').writeFileSync(${JSON.stringify(path.join(dir, `${file}.ran`))}, '');`;
  const copy = path.join(dir, 'node_modules', 'bufferutil');
  // The project's copy: a bin that must not run, a version with an escape sequence.
  copyOf(copy, { version: '4.9.9\u001b[31m\r', bin: { [manifest.name]: '../../evil.js' } });
  fs.writeFileSync(path.join(dir, 'evil.js'), ran('bin'));
  // A caller whose manifest holds bidirectional controls, and an object where a string belongs.
  write(dir, {
    'node_modules/odd/package.json': '{"name": "od\u202ed\u2066", "version": {"toString": 1}}',
    'node_modules/odd/index.js': "require('bufferutil')",
  });
  const run = cli(['--no-bench'], { cwd: dir, nodeArgs: ['--no-addons'] });
  assert.equal(run.status, 0, run.stderr);
  assert.match(
    run.stdout,
    new RegExp(`^${manifest.name} 4\\.9\\.9\\[31m \\(the project's copy: ${literal(fs.realpathSync(copy))}\\) · Node`)
  );
  assert.doesNotMatch((run.stdout + run.stderr).replaceAll('\n', ''), /[\p{Cc}\p{Cf}]/u);
  assert.match(run.stdout, /^ {2}odd \{"toString":1\} \(node_modules\/odd\): loads this package$/m);
  assert.equal(JSON.parse(cli(['--json', '--no-bench'], { cwd: dir }).stdout).package.version, '4.9.9\u001b[31m\r');
  // Its package.json cannot point the entry outside it.
  copyOf(copy, { main: '../../evil.js' });
  const outside = cli(['--json', '--no-bench'], { cwd: dir });
  assert.equal(outside.status, 1);
  assert.match(JSON.parse(outside.stdout).error, /: its entry lies outside it$/);
  assert.equal(outside.stderr, `${JSON.parse(outside.stdout).error}\n`);
  // A copy that is not this package is not loaded; --require-native loads no original bufferutil either.
  fs.rmSync(copy, { recursive: true });
  write(copy, { 'package.json': { name: 'bufferutil', version: '4.1.0' }, 'index.js': ran('bufferutil'), 'fallback.js': '' });
  // The original's entry is timed only from inside its folder.
  write(copy, { 'package.json': { name: 'bufferutil', version: '4.1.0', main: '../../evil.js' } });
  assert.equal(cli(['--quick'], { cwd: dir }).status, 0);
  write(copy, { 'package.json': { name: 'bufferutil', version: '4.1.0' } });
  const gate = cli(['--require-native', '--bench', '--quick', '--json'], { cwd: dir });
  assert.equal(gate.status, 0, gate.stderr);
  assert.equal(fs.realpathSync(JSON.parse(gate.stdout).package.dir), fs.realpathSync(ROOT));
  assert.ok(!fs.readdirSync(dir).some((file) => file.endsWith('.ran')), 'ran code from the project');
  // A node_modules above the project decides nothing.
  const nested = write(path.join(dir, 'app'), { 'package.json': '{}' });
  copyOf(copy, { version: '4.9.9' });
  assert.equal(JSON.parse(cli(['--json', '--no-bench'], { cwd: nested }).stdout).package.version, manifest.version);
});

test('every failure is one line on stderr and, with --json, an object with `error`: no stack trace', (t) => {
  const oneLine = (run, status, why) => {
    assert.equal(run.status, status, run.stderr);
    assert.match(run.stderr, new RegExp(`^${manifest.name}: [^\\n]*${why}[^\\n]*\\n$`));
    if (run.stdout) assert.equal(JSON.parse(run.stdout).error, run.stderr.trim());
  };
  // A working directory removed under the command (a POSIX shell removes it).
  if (process.platform !== 'win32') {
    const gone = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-cli-'));
    const script = `cd "${gone}" && rmdir "${gone}" && exec "$0" "$@"`;
    oneLine(spawnSync('sh', ['-c', script, process.execPath, BIN, '--json'], { encoding: 'utf8' }), 1, 'no longer exists');
  }
  // The permission model (Node 20 and later), in a project with its own copy: reading only this package's folder, and all.
  const flag = ['--permission', '--experimental-permission'].find((name) => process.allowedNodeEnvironmentFlags.has(name));
  if (flag) {
    const dir = aliasedProject(t);
    const reads = (at) => ['--no-warnings', flag, `--allow-fs-read=${at}`];
    oneLine(cli(['--json', '--no-bench'], { cwd: dir, nodeArgs: reads(`${ROOT}${path.sep}*`) }), 1, 'FileSystemRead');
    const allowed = cli(['--json', '--no-bench'], { cwd: dir, nodeArgs: reads('*') });
    assert.equal(allowed.status, 0, allowed.stderr);
    assert.equal(JSON.parse(allowed.stdout).package.dir, fs.realpathSync(path.join(dir, 'node_modules', 'bufferutil')));
  }
  // No code generation from strings: the benchmark says why it did not run.
  const refused = cli(['--quick'], { nodeArgs: ['--disallow-code-generation-from-strings'] });
  assert.equal(refused.status, 0, refused.stderr);
  assert.match(refused.stdout, /^No benchmark: code generation from strings is disallowed here/m);
  // An implementation that masks wrong stops the benchmark before anything is timed.
  const project = tree(t, {
    'package.json': { name: 'app' },
    'node_modules/bufferutil/package.json': { name: 'bufferutil', version: '4.1.0' },
    'node_modules/bufferutil/index.js': 'exports.mask = exports.unmask = () => {};',
  });
  oneLine(cli(['--json', '--quick'], { cwd: project }), 1, 'bufferutil mask of 1 B differs from the byte loop; nothing timed');
  // Refusals of options: one line, exit 2.
  oneLine(cli(['--frobnicate', '--json']), 2, 'unknown option --frobnicate; --help lists the options');
});

test('--require-native: exit 0 where the addon loads (no benchmark), else 1 in one line with the reason and the fix for how it was lost', (t) => {
  const loads = cli(['--require-native', '--json']);
  assert.equal(loads.status, 0, loads.stderr);
  assert.ok(JSON.parse(loads.stdout).native && !('bench' in JSON.parse(loads.stdout)) && loads.stderr === '');
  // A copy with no addon beside it and no platform package to find; its manifest as a clone has it.
  const dir = copyOf(tree(t, {}));
  const clone = { optionalDependencies: undefined };
  const gate = ({ nodeArgs = [], env = {}, changes = clone, args = ['--json', '--require-native'] } = {}) => {
    copyOf(dir, changes);
    return cli(args, { cwd: dir, bin: path.join(dir, 'bin', 'bufferutil-simd.js'), nodeArgs, env });
  };
  const fix = (options) => {
    const run = gate(options);
    assert.equal(run.status, 1);
    assert.equal(run.stderr, `${JSON.parse(run.stdout).error}\n`);
    return JSON.parse(run.stdout);
  };
  const noAddons = gate({ nodeArgs: ['--no-addons'], args: ['--require-native'] });
  assert.equal(noAddons.status, 1);
  assert.match(
    noAddons.stdout,
    /^backend +wasm, NO native addon\n {2}why: Cannot load native addon because loading addons is disabled/m
  );
  assert.match(noAddons.stdout, /^ {2}fix: run Node without --no-addons$/m);
  assert.match(
    noAddons.stderr,
    /^bufferutil-simd: --require-native: backend is wasm, not the native addon\. run Node without --no-addons\n$/
  );
  const level = fix({ env: { BUFFERUTIL_SIMD_LEVEL: 'wasm' } });
  assert.deepEqual([level.backend, level.native, level.addon], ['wasm', false, null]);
  assert.deepEqual([level.reason, level.fix], ['BUFFERUTIL_SIMD_LEVEL=wasm asks for it', 'unset BUFFERUTIL_SIMD_LEVEL']);
  // The manifest a clone packs names no platform packages: reinstalling would not bring one.
  assert.match(fix().fix, /^this copy names no platform packages; .*"Try a local build in an app"$/);
  // An installed copy without its platform package: the loader's own fix (lib/tiers/addon.js words it).
  const [first, musl] = require('../lib/tiers/addon').platformNames();
  const host = `${manifest.name}-${musl && !process.report?.getReport?.().header?.glibcVersionRuntime ? musl : first}`;
  const installed = fix({ changes: { optionalDependencies: { [host]: manifest.version } } }).fix;
  assert.match(installed, new RegExp(`^Install ${literal(host)}@${literal(manifest.version)} where this code runs: `));
  // BUFFERUTIL_SIMD_REQUIRE_NATIVE=1 is the same gate; without either, the report alone, no warning repeating it.
  const required = gate({ env: { BUFFERUTIL_SIMD_REQUIRE_NATIVE: '1' }, args: ['--no-bench'] });
  assert.equal(required.status, 1);
  assert.match(
    required.stderr,
    /^bufferutil-simd: BUFFERUTIL_SIMD_REQUIRE_NATIVE=1: backend is \w+, not the native addon\. [^\n]*\n$/
  );
  const lost = gate({ args: ['--no-bench'] });
  assert.deepEqual([lost.status, lost.stderr], [0, '']);
  assert.match(lost.stdout, /NO native addon/);
  fs.writeFileSync(path.join(dir, 'Cargo.toml'), '');
  assert.equal(fix().fix, 'build the addon: npm run build');
});

test('--help and -h print the options; a budget is any positive number a user would write, and nothing else', () => {
  for (const help of ['--help', '-h']) {
    const run = cli([help]);
    assert.equal(run.status, 0, help);
    for (const option of ['--require-native', '--json', '--quick', '--seconds=S', '--no-bench', 'bunx --bun'])
      assert.ok(run.stdout.includes(option), option);
  }
  // As most command lines take a value: after `=` or a space.
  for (const seconds of [['--seconds=0.5'], ['--seconds', '0.5'], ['--seconds=.5'], ['--seconds=5.'], ['--seconds=1e-1']]) {
    assert.equal(cli(['--no-bench', ...seconds]).status, 0, seconds);
  }
  // A budget of nothing would time nothing.
  const budget = (value) => `--seconds=${value}: the budget is S > 0`;
  for (const [seconds, why] of [
    [['--seconds=0'], budget(0)],
    [['--seconds', '0'], budget(0)],
    ...['-1', 'x', 'Infinity', ''].map((value) => [[`--seconds=${value}`], budget(value)]),
    [['--seconds'], "Option '--seconds <value>' argument missing"],
  ]) {
    const run = cli(['--no-bench', ...seconds]);
    assert.equal(run.status, 2, seconds);
    assert.equal(run.stderr, `${manifest.name}: ${why}; --help lists the options\n`);
  }
});

test('the walk ends on every tree: symlink cycles in any store, manifests that are no regular file, sources past the size limit, a tree past the time budget', {
  skip: process.platform === 'win32' && 'POSIX symbolic links and FIFOs',
}, (t) => {
  const dir = aliasedProject(t);
  const caller = (at, name) => ({
    [`${at}/package.json`]: { name, version: '1.0.0' },
    [`${at}/index.js`]: "require('bufferutil')",
  });
  write(dir, {
    ...caller('node_modules/.pnpm/a/node_modules/in-pnpm', 'in-pnpm'),
    ...caller('node_modules/.deno/a/node_modules/in-deno', 'in-deno'),
    ...caller('node_modules/big', 'big'),
    ...caller('node_modules/zero', 'zero'),
    ...caller('node_modules/fifo', 'fifo'),
  });
  // Each store and a plain node_modules link back to where they sit, twice over.
  for (const link of ['.pnpm/a/node_modules/.pnpm', '.pnpm/b/node_modules/.pnpm', '.deno/a/node_modules/.deno']) {
    fs.mkdirSync(path.join(dir, 'node_modules', link, '..'), { recursive: true });
    fs.symlinkSync('../..', path.join(dir, 'node_modules', link));
  }
  fs.symlinkSync('..', path.join(dir, 'node_modules/big/node_modules'));
  // A 4 GiB source (sparse) is not read; manifests that are a device or a FIFO are not packages.
  fs.writeFileSync(path.join(dir, 'node_modules/big/huge.js'), '');
  fs.truncateSync(path.join(dir, 'node_modules/big/huge.js'), 2 ** 32);
  fs.rmSync(path.join(dir, 'node_modules/zero/package.json'));
  fs.symlinkSync('/dev/zero', path.join(dir, 'node_modules/zero/package.json'));
  fs.rmSync(path.join(dir, 'node_modules/fifo/package.json'));
  assert.equal(spawnSync('mkfifo', [path.join(dir, 'node_modules/fifo/package.json')]).status, 0);
  const run = cli(['--json', '--no-bench'], { cwd: dir, timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  const found = JSON.parse(run.stdout).consumers.map((c) => `${c.name} ${c.uses}`);
  assert.deepEqual(
    found.sort(),
    ['big', 'in-deno', 'in-pnpm'].map((name) => `${name} ${manifest.name}`)
  );
  // Past the time budget (a clock that jumps): callers not listed, never "none"; --require-native still answers.
  const preload = write(tree(t, {}), {
    'late.js': 'const now = Date.now; let n = 0; Date.now = () => now() + (++n > 3 ? 1e9 : 0);',
  });
  const late = cli(['--require-native', '--json'], { cwd: dir, nodeArgs: ['-r', path.join(preload, 'late.js')] });
  const report = JSON.parse(late.stdout);
  assert.equal(late.status, report.native ? 0 : 1);
  assert.equal(report.consumers, null);
  assert.match(report.unlisted, /^reading the tree took over 30 s \(\d+ folders\)/);
});

test('a project at the filesystem root (a Dockerfile without WORKDIR): the search for a bufferutil ends there', {
  skip: process.platform !== 'linux' && 'a root of its own needs Linux namespaces',
}, (t) => {
  // A root of its own: node and its libraries, the project at /, this package's command in /opt/pkg.
  const root = tree(t, { 'package.json': { name: 'app' }, ...wsFiles('node_modules/ws', '8.21.3', false) });
  const libs = spawnSync('ldd', [process.execPath], { encoding: 'utf8' }).stdout?.match(/\/\S+/g) ?? [];
  for (const file of [...libs, process.execPath]) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.copyFileSync(file, path.join(root, file));
  }
  copyOf(path.join(root, 'opt/pkg'));
  const args = ['-Ur', `--root=${root}`, '--wd=/', process.execPath, '/opt/pkg/bin/bufferutil-simd.js', '--json', '--no-bench'];
  const run = spawnSync('unshare', args, { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH } });
  if (run.status !== 0 && /unshare/.test(`${run.error ?? ''}${run.stderr}`)) return t.skip(`no unshare here: ${run.stderr}`);
  assert.equal(run.status, 0, run.stderr);
  const { project, consumers } = JSON.parse(run.stdout);
  assert.equal(project, '/');
  assert.deepEqual(consumers, [{ name: 'ws', version: '8.21.3', path: 'node_modules/ws', uses: 'none', bufferutil: null }]);
});

test("the manager's way to switch every caller: npm, pnpm, Yarn, Bun, Deno from the layout or lockfile; Yarn PnP says it cannot list", (t) => {
  const spec = `npm:${manifest.name}@^${manifest.version}`;
  const nested = {
    'node_modules/websocket/package.json': { name: 'websocket', version: '1.0.35' },
    'node_modules/websocket/index.js': "require('bufferutil')",
    'node_modules/websocket/node_modules/bufferutil/package.json': { name: 'bufferutil', version: '4.1.0' },
  };
  const pin = (field) => `"${field}": { "bufferutil": "${spec}" } in package.json, then reinstall`;
  for (const [manager, files, fix] of [
    ['npm', { 'package-lock.json': '{}' }, pin('overrides')],
    ['pnpm', { 'pnpm-lock.yaml': '' }, `overrides: { bufferutil: ${spec} } in pnpm-workspace.yaml, then reinstall`],
    ['yarn', { 'yarn.lock': '' }, pin('resolutions')],
    ['bun', { 'bun.lock': '{}' }, pin('overrides')],
    ['deno', { 'deno.lock': '{}' }, pin('overrides')],
  ]) {
    const dir = write(aliasedProject(t), { ...files, ...nested });
    const report = JSON.parse(cli(['--json', '--no-bench'], { cwd: dir }).stdout);
    assert.deepEqual([report.manager, report.switch], [manager, fix]);
    const text = cli(['--no-bench'], { cwd: dir }).stdout;
    assert.ok(text.includes(`  to switch every caller (${manager}): ${fix}`), text);
  }
  // The original at the top: the manager's own command adds this package, and pins the copy nested beside it.
  const original = write(tree(t, { 'package.json': { name: 'app' }, 'yarn.lock': '', ...nested }), {
    'node_modules/bufferutil/package.json': { name: 'bufferutil', version: '4.1.0' },
  });
  const { switch: added } = JSON.parse(cli(['--json', '--no-bench'], { cwd: original }).stdout);
  assert.equal(added, `yarn add bufferutil@${spec}, and ${pin('resolutions')}`);
  // Yarn PnP: no node_modules to read; never a wrong "no package here requires bufferutil".
  const pnp = tree(t, { 'package.json': { name: 'app' }, '.pnp.cjs': '', 'yarn.lock': '' });
  const report = JSON.parse(cli(['--json', '--no-bench'], { cwd: pnp }).stdout);
  assert.deepEqual([report.manager, report.consumers, report.switch], ['yarn-pnp', null, pin('resolutions')]);
  assert.match(cli(['--no-bench'], { cwd: pnp }).stdout, /^callers +not listed: Yarn PnP keeps packages in zip archives/m);
  write(pnp, { 'package.json': { name: 'app', resolutions: { bufferutil: spec } } });
  assert.equal(JSON.parse(cli(['--json', '--no-bench'], { cwd: pnp }).stdout).switch, null);
});
