'use strict';

// `npx bufferutil-simd` (bin/bufferutil-simd.js, docs/check.md), run as npx runs it. `ok` expects exit 0 and returns the
// report (--json) or the text; `failed` expects one line on stderr, the --json object's `error`; `tree` builds a project.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'bufferutil-simd.js');
const manifest = require('../package.json');
const SPEC = `npm:${manifest.name}@^${manifest.version}`;
const BU = 'node_modules/bufferutil';
const hasCore = typeof require('node:http').websocketMask === 'function';
const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PEERS = ['ws', 'bufferutil'].every((id) => fs.existsSync(path.join(ROOT, 'node_modules', id, 'package.json')))
  ? false
  : 'ws and bufferutil 4.1.0 are not installed beside the package here';

/** `bin` run by this Node; `env` is added to this process's, less BUFFERUTIL_SIMD_LEVEL and NODE_OPTIONS. */
function cli(args, { nodeArgs = [], env = {}, cwd = ROOT, bin = BIN, timeout } = {}) {
  const { BUFFERUTIL_SIMD_LEVEL, NODE_OPTIONS, ...base } = process.env;
  const options = { cwd, env: { ...base, ...env }, encoding: 'utf8', timeout };
  const run = spawnSync(process.execPath, [...nodeArgs, bin, ...args], options);
  assert.equal(run.error, undefined);
  return run;
}

function ok(cwd, args = ['--json', '--no-bench'], options = {}) {
  const run = cli(args, { cwd, ...options });
  assert.equal(run.status, 0, run.stderr);
  return args.includes('--json') ? JSON.parse(run.stdout) : run.stdout;
}

function failed(run, status, why) {
  assert.equal(run.status, status, run.stderr);
  assert.match(run.stderr, new RegExp(`^${manifest.name}: [^\\n]*${literal(why)}[^\\n]*\\n$`));
  const report = JSON.parse(run.stdout);
  assert.equal(run.stderr, `${report.error}\n`);
  return report;
}

function write(dir, files) {
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), typeof text === 'string' ? text : JSON.stringify(text));
  }
  return dir;
}

/** A project (a package.json named app) holding `files`, in a temporary folder removed after test `t`. */
function tree(t, files = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-cli-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return write(dir, { 'package.json': { name: 'app' }, ...files });
}

/** A copy of this package in `dir` (no addon beside it) with `changes` to its package.json; returns `dir`. */
function copyOf(dir, changes = {}) {
  for (const entry of ['bin', 'lib', 'index.js']) fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  return write(dir, { 'package.json': { ...manifest, ...changes } });
}

/** A project whose bufferutil is a copy of this package, as `npm install bufferutil@npm:bufferutil-simd` lays it out. */
function aliased(t, files) {
  const dir = tree(t, files);
  copyOf(path.join(dir, BU));
  return dir;
}

/** A package in `at`, named as its folder in node_modules, holding `files` (by default an index.js requiring bufferutil). */
const pkg = (at, version = '1.0.0', files = { 'index.js': "require('bufferutil')" }) => ({
  [`${at}/package.json`]: { name: at.split('node_modules/').pop(), version },
  ...Object.fromEntries(Object.entries(files).map(([file, text]) => [`${at}/${file}`, text])),
});

// ws as its lib/buffer-util.js takes a bufferutil: 8.22.1 and later look for core's function first.
const WS_CORE = "const { websocketMask } = require('http');\nif (websocketMask) {} else ";
const WS_LIB = "if (!process.env.WS_NO_BUFFER_UTIL) {\n  const bufferUtil = require('bufferutil');\n}\n";
const wsAt = (at, version, core) => pkg(at, version, { 'lib/buffer-util.js': `${core ? WS_CORE : ''}${WS_LIB}` });

/** A --quick benchmark: per op and size, this package's ns and per column (`columns`, then core's) a ratio in its range. */
function benched({ cpu, bench }, columns) {
  assert.ok(cpu.length > 0 && bench.cpu === cpu && bench.rounds === 3);
  const cell = ({ op, size }) => `${op} ${size}`;
  const cells = ['mask', 'unmask'].flatMap((op) => [64, 1024, 65536].map((size) => cell({ op, size })));
  assert.deepEqual(bench.results.map(cell), cells);
  for (const { ns, ratios, range, noisy } of bench.results) {
    assert.deepEqual(Object.keys(ratios), [...columns, ...(hasCore ? ['core'] : [])]);
    for (const [id, [min, max]] of Object.entries(range)) assert.ok(min > 0 && min <= ratios[id] && ratios[id] <= max);
    assert.ok(Number.isFinite(ns) && ns > 0 && typeof noisy === 'boolean');
  }
}

test('the bin is `bufferutil-simd`; --help and -h print the options; a budget is any positive number, after `=` or a space', () => {
  assert.equal(manifest.bin[manifest.name], 'bin/bufferutil-simd.js');
  assert.ok(manifest.files.includes('bin/'));
  assert.match(fs.readFileSync(BIN, 'utf8'), /^#!\/usr\/bin\/env node\n/);
  for (const help of ['--help', '-h']) {
    const usage = ok(ROOT, [help]);
    for (const option of ['--require-native', '--json', '--quick', '--seconds=S', '--no-bench', 'bunx --bun'])
      assert.ok(usage.includes(option), option);
  }
  for (const seconds of ['--seconds=0.5', '--seconds 0.5', '--seconds=.5', '--seconds=5.', '--seconds=1e-1'])
    ok(ROOT, ['--no-bench', ...seconds.split(' ')]);
  const budget = (value) => `--seconds=${value}: the budget is S > 0`;
  const refused = { '--seconds': "Option '--seconds <value>' argument missing", '--seconds 0': budget(0) };
  for (const value of ['0', '-1', 'x', 'Infinity', '']) refused[`--seconds=${value}`] = budget(value);
  for (const [seconds, why] of Object.entries(refused)) {
    const run = cli(['--no-bench', ...seconds.split(' ')]);
    assert.deepEqual([run.status, run.stderr], [2, `${manifest.name}: ${why}; --help lists the options\n`], seconds);
  }
  failed(cli(['--frobnicate', '--json']), 2, 'unknown option --frobnicate; --help lists the options');
});

test('the report, text and --json: backend, addon, core, callers; per op and size a ratio in its range', { skip: PEERS }, () => {
  const report = ok(ROOT, ['--json', '--quick']);
  assert.match(report.backend, /^(avx512|avx2|sse2|neon|scalar)$/);
  assert.ok(report.native && fs.existsSync(report.addon) && report.reason === null && report.websocketMask === hasCore);
  const { ws, bufferutil } = manifest.devDependencies;
  const wsCaller = { name: 'ws', version: ws, path: 'node_modules/ws', uses: hasCore ? 'core' : 'bufferutil', bufferutil: BU };
  assert.deepEqual([report.manager, report.consumers, report.unlisted], ['npm', [wsCaller], null]);
  assert.deepEqual(report.bufferutil, { name: 'bufferutil', version: bufferutil, path: BU });
  benched(report, ['js', 'bufferutil']);
  const noAddons = ok(ROOT, ['--json', '--quick'], { nodeArgs: ['--no-addons'] });
  assert.equal(noAddons.backend, 'wasm');
  benched(noAddons, ['js']);
  const text = ok(ROOT, ['--quick']);
  const head = `^${manifest.name} ${manifest.version} · Node v[\\d.]+ · ${process.platform}-${process.arch} · \\S`;
  assert.match(text, new RegExp(head));
  assert.match(text, new RegExp(`^backend +${report.backend}, the native addon: ${literal(report.addon)}$`, 'm'));
  assert.match(text, hasCore ? /^core +http\.websocketMask: ws >= 8\.22\.1 uses it/m : /^core +no http\.websocketMask/m);
  assert.match(text, /^callers +0 of 1 that require bufferutil load this package:$/m);
  const verdict = hasCore ? "uses core's http.websocketMask" : 'loads the original bufferutil, not this package';
  assert.match(text, new RegExp(`^  ws 8\\.\\d+\\.\\d+ \\(node_modules/ws\\): ${literal(verdict)}`, 'm'));
  const install = `^  to switch every caller \\(npm\\): npm install bufferutil@${literal(SPEC)}$`;
  if (!hasCore) assert.match(text, new RegExp(install, 'm'));
  const cells = ' +\\d+\\.\\d\\d \\(\\d+\\.\\d\\d-\\d+\\.\\d\\d\\)'.repeat(hasCore ? 3 : 2);
  for (const row of ['64 B +mask', '1 KiB +mask', '64 KiB +mask', '64 B +unmask', '1 KiB +unmask', '64 KiB +unmask'])
    assert.match(text, new RegExp(`^${row} +[\\d.]+${cells}$`, 'm'));
  assert.match(text, /^Median of 3 rounds \(lowest-highest\)\.$/m);
});

test('aliased as bufferutil: not timed against itself; every caller, nested or hoisted, what it loads, each manager’s switch', (t) => {
  const dir = aliased(t);
  const report = ok(dir, ['--json', '--quick']);
  assert.deepEqual(report.bufferutil, { name: manifest.name, version: manifest.version, path: BU });
  assert.deepEqual(report.consumers, []);
  benched(report, ['js']);
  assert.match(ok(dir, ['--no-bench']), /^callers +no package here requires bufferutil/m);
  // Callers of every kind: a bundle with ws inside, one with a bufferutil of its own; and docs, that only names it.
  write(dir, {
    ...wsAt('node_modules/ws', '8.23.1', true),
    ...wsAt('node_modules/engine.io-client/node_modules/ws', '8.21.3', false),
    ...pkg('node_modules/engine.io-client', '6.6.8', {}),
    ...pkg('node_modules/websocket', '1.0.35', { 'lib/WebSocketFrame.js': "var bufferUtil = require('bufferutil');" }),
    ...pkg('node_modules/@scope/bundled', '1.0.0', { 'lib/bundle.mjs': 'import * as bufferUtil from "bufferutil";' }),
    ...pkg('node_modules/old', '1.0.0', { 'index.cjs': 'require("bufferutil")' }),
    ...pkg('node_modules/old/node_modules/bufferutil', '4.0.1', {}),
    ...pkg('node_modules/docs', '1.0.0', { 'index.js': "module.exports = 'bufferutil';" }),
  });
  const callers = (env) => Object.fromEntries(ok(dir, undefined, { env }).consumers.map(({ path: at, ...rest }) => [at, rest]));
  const caller = (name, version, uses, bufferutil = BU) => ({ name, version, uses, bufferutil });
  assert.deepEqual(callers(), {
    'node_modules/@scope/bundled': caller('@scope/bundled', '1.0.0', manifest.name),
    'node_modules/engine.io-client/node_modules/ws': caller('ws', '8.21.3', manifest.name),
    'node_modules/old': caller('old', '1.0.0', 'bufferutil', 'node_modules/old/node_modules/bufferutil'),
    'node_modules/websocket': caller('websocket', '1.0.35', manifest.name),
    'node_modules/ws': caller('ws', '8.23.1', hasCore ? 'core' : manifest.name),
  });
  // ws's own switch turns its bufferutil off; WebSocket-Node reads no such switch.
  const off = callers({ WS_NO_BUFFER_UTIL: '1' });
  assert.equal(off['node_modules/engine.io-client/node_modules/ws'].uses, 'off');
  assert.equal(off['node_modules/ws'].uses, hasCore ? 'core' : 'off');
  assert.equal(off['node_modules/websocket'].uses, manifest.name);
  const text = ok(dir, ['--no-bench']);
  assert.match(text, new RegExp(`^callers +${hasCore ? 3 : 4} of 5 that require bufferutil load this package:$`, 'm'));
  assert.match(text, /^ {2}websocket 1\.0\.35 \(node_modules\/websocket\): loads this package$/m);
  assert.match(text, /^ {2}old 1\.0\.0 \(node_modules\/old\): loads the original bufferutil, not this package/m);
  // Each manager's way to pin every copy, old's nested original included; Yarn PnP's zip archives go unread.
  const pin = (field) => `"${field}": { "bufferutil": "${SPEC}" } in package.json, then reinstall`;
  const switches = {
    npm: ['package-lock.json', pin('overrides')],
    pnpm: ['pnpm-lock.yaml', `overrides: { bufferutil: ${SPEC} } in pnpm-workspace.yaml, then reinstall`],
    yarn: ['yarn.lock', pin('resolutions')],
    bun: ['bun.lock', pin('overrides')],
    deno: ['deno.lock', pin('overrides')],
  };
  for (const [manager, [lockfile, fix]] of Object.entries(switches)) {
    write(dir, { [lockfile]: '' });
    const report = ok(dir);
    assert.deepEqual([report.manager, report.switch], [manager, fix]);
    assert.ok(ok(dir, ['--no-bench']).includes(`\n  to switch every caller (${manager}): ${fix}\n`), manager);
    fs.rmSync(path.join(dir, lockfile));
  }
  write(dir, { '.pnp.cjs': '', 'yarn.lock': '' });
  const pnp = ok(dir);
  assert.deepEqual([pnp.manager, pnp.consumers, pnp.switch], ['yarn-pnp', null, pin('resolutions')]);
  assert.match(ok(dir, ['--no-bench']), /^callers +not listed: Yarn PnP keeps packages in zip archives/m);
  write(dir, { 'package.json': { name: 'app', resolutions: { bufferutil: SPEC } } });
  assert.equal(ok(dir).switch, null);
  // The original at the top: the manager's own command adds this package.
  fs.rmSync(path.join(dir, '.pnp.cjs'));
  write(dir, { [`${BU}/package.json`]: { name: 'bufferutil', version: '4.1.0' } });
  assert.equal(ok(dir).switch, `yarn add bufferutil@${SPEC}, and ${pin('resolutions')}`);
});

test('a CI gate: the project alone decides, its copy is checked and only its entry runs, nothing prints a control character', (t) => {
  // A caller whose manifest holds bidirectional controls, and an object where a string belongs.
  const dir = tree(t, {
    'node_modules/odd/package.json': '{"name": "od\u202ed\u2066", "version": {"toString": 1}}',
    'node_modules/odd/index.js': "require('bufferutil')",
  });
  const ran = (file) => `require('fs').writeFileSync(${JSON.stringify(path.join(dir, `${file}.ran`))}, '');`;
  // The project's copy: a bin that must not run, a version with an escape sequence.
  const copy = copyOf(path.join(dir, BU), { version: '4.9.9\u001b[31m\r', bin: { [manifest.name]: '../../evil.js' } });
  write(dir, { 'evil.js': ran('bin') });
  const run = cli(['--no-bench'], { cwd: dir, nodeArgs: ['--no-addons'] });
  assert.equal(run.status, 0, run.stderr);
  const head = `^${manifest.name} 4\\.9\\.9\\[31m \\(the project's copy: ${literal(fs.realpathSync(copy))}\\) · Node`;
  assert.match(run.stdout, new RegExp(head));
  assert.doesNotMatch((run.stdout + run.stderr).replaceAll('\n', ''), /[\p{Cc}\p{Cf}]/u);
  assert.match(run.stdout, /^ {2}odd \{"toString":1\} \(node_modules\/odd\): loads this package$/m);
  assert.equal(ok(dir).package.version, '4.9.9\u001b[31m\r');
  copyOf(copy, { main: '../../evil.js' });
  assert.match(failed(cli(['--json', '--no-bench'], { cwd: dir }), 1, '').error, /: its entry lies outside it$/);
  // A copy that is not this package is not loaded, and the original's entry is timed only from inside its folder.
  fs.rmSync(copy, { recursive: true });
  const original = { name: 'bufferutil', version: '4.1.0' };
  write(copy, { 'package.json': { ...original, main: '../../evil.js' }, 'index.js': ran('bufferutil'), 'fallback.js': '' });
  ok(dir, ['--quick']);
  write(copy, { 'package.json': original });
  const gate = ok(dir, ['--require-native', '--bench', '--quick', '--json']);
  assert.equal(fs.realpathSync(gate.package.dir), fs.realpathSync(ROOT));
  assert.ok(!fs.readdirSync(dir).some((file) => file.endsWith('.ran')), 'ran code from the project');
  // A node_modules above the project decides nothing: not the copy, not what a caller there loads.
  copyOf(copy, { version: '4.9.9' });
  const ws = {
    'node_modules/ws/package.json': { name: 'ws', version: '8.21.0' },
    'node_modules/ws/index.js': "require('bufferutil')",
  };
  const app = ok(write(path.join(dir, 'app'), { 'package.json': '{}', ...ws }));
  assert.equal(app.package.version, manifest.version);
  assert.deepEqual(
    app.consumers.map(({ name, uses }) => [name, uses]),
    [['ws', 'none']]
  );
});

test('every failure is one line on stderr and, with --json, an object with `error`: no stack trace', (t) => {
  if (process.platform !== 'win32') {
    const gone = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-cli-'));
    const script = `cd "${gone}" && rmdir "${gone}" && exec "$0" "$@"`;
    failed(spawnSync('sh', ['-c', script, process.execPath, BIN, '--json'], { encoding: 'utf8' }), 1, 'no longer exists');
  }
  // The permission model (Node 20 and later), in a project with its own copy: reading only this package's folder, and all.
  const flag = ['--permission', '--experimental-permission'].find((name) => process.allowedNodeEnvironmentFlags.has(name));
  if (flag) {
    const dir = aliased(t);
    const reads = (at) => ({ cwd: dir, nodeArgs: ['--no-warnings', flag, `--allow-fs-read=${at}`] });
    failed(cli(['--json', '--no-bench'], reads(`${ROOT}${path.sep}*`)), 1, 'FileSystemRead');
    assert.equal(ok(dir, undefined, reads('*')).package.dir, fs.realpathSync(path.join(dir, BU)));
  }
  const refused = ok(ROOT, ['--quick'], { nodeArgs: ['--disallow-code-generation-from-strings'] });
  assert.match(refused, /^No benchmark: code generation from strings is disallowed here/m);
  const project = tree(t, pkg(BU, '4.1.0', { 'index.js': 'exports.mask = exports.unmask = () => {};' }));
  failed(cli(['--json', '--quick'], { cwd: project }), 1, 'bufferutil mask of 1 B differs from the byte loop; nothing timed');
});

test('--require-native: exit 0 where the addon loads (no benchmark), else 1 in one line with the reason and the fix for how it was lost', (t) => {
  const loads = cli(['--require-native', '--json']);
  assert.deepEqual([loads.status, loads.stderr], [0, '']);
  assert.ok(JSON.parse(loads.stdout).native && !('bench' in JSON.parse(loads.stdout)));
  // A copy with no addon beside it and no platform package to find; its manifest as a clone has it.
  const dir = tree(t);
  const gate = ({ nodeArgs, env, changes = { optionalDependencies: undefined }, args = ['--json', '--require-native'] } = {}) =>
    cli(args, { cwd: dir, bin: path.join(copyOf(dir, changes), 'bin', 'bufferutil-simd.js'), nodeArgs, env });
  const fix = (options) => failed(gate(options), 1, '--require-native: backend is ').fix;
  const noAddons = gate({ nodeArgs: ['--no-addons'], args: ['--require-native'] });
  const line = `${manifest.name}: --require-native: backend is wasm, not the native addon. run Node without --no-addons\n`;
  assert.deepEqual([noAddons.status, noAddons.stderr], [1, line]);
  const why = /^backend +wasm, NO native addon\n {2}why: Cannot load native addon because loading addons is disabled/m;
  assert.match(noAddons.stdout, why);
  assert.match(noAddons.stdout, /^ {2}fix: run Node without --no-addons$/m);
  const level = failed(gate({ env: { BUFFERUTIL_SIMD_LEVEL: 'wasm' } }), 1, '--require-native: backend is wasm');
  assert.deepEqual([level.backend, level.native, level.addon], ['wasm', false, null]);
  assert.deepEqual([level.reason, level.fix], ['BUFFERUTIL_SIMD_LEVEL=wasm asks for it', 'unset BUFFERUTIL_SIMD_LEVEL']);
  assert.match(fix(), /^this copy names no platform packages; .*"Try a local build in an app"$/);
  const [first, musl] = require('../lib/tiers/addon').platformNames();
  const host = `${manifest.name}-${musl && !process.report?.getReport?.().header?.glibcVersionRuntime ? musl : first}`;
  const installed = fix({ changes: { optionalDependencies: { [host]: manifest.version } } });
  assert.match(installed, new RegExp(`^Install ${literal(host)}@${literal(manifest.version)} where this code runs: `));
  // The same gate from BUFFERUTIL_SIMD_REQUIRE_NATIVE=1; without either, the report alone, and no warning repeating it.
  const required = gate({ env: { BUFFERUTIL_SIMD_REQUIRE_NATIVE: '1' }, args: ['--no-bench'] });
  assert.equal(required.status, 1);
  const gated = /^bufferutil-simd: BUFFERUTIL_SIMD_REQUIRE_NATIVE=1: backend is \w+, not the native addon\. .*\n$/;
  assert.match(required.stderr, gated);
  const lost = gate({ args: ['--no-bench'] });
  assert.deepEqual([lost.status, lost.stderr], [0, '']);
  assert.match(lost.stdout, /NO native addon/);
  fs.writeFileSync(path.join(dir, 'Cargo.toml'), '');
  assert.equal(fix(), 'build the addon: npm run build');
});

test('the walk ends: link cycles in any store, a manifest that is no regular file, a 4 GiB source, a tree past the time budget', {
  skip: process.platform === 'win32' && 'POSIX symbolic links and FIFOs',
}, (t) => {
  const dir = aliased(t, {
    ...pkg('node_modules/.pnpm/a/node_modules/in-pnpm'),
    ...pkg('node_modules/.deno/a/node_modules/in-deno'),
    ...pkg('node_modules/big', '1.0.0', { 'index.js': "require('bufferutil')", 'huge.js': '' }),
    'node_modules/zero/index.js': "require('bufferutil')",
    'node_modules/fifo/index.js': "require('bufferutil')",
  });
  // Each store and a plain node_modules link back to where they sit, twice over; a manifest is a device, one a FIFO.
  const up = '../..';
  const links = { '.pnpm/a/node_modules/.pnpm': up, '.pnpm/b/node_modules/.pnpm': up, '.deno/a/node_modules/.deno': up };
  for (const [link, target] of Object.entries({ ...links, 'big/node_modules': '..', 'zero/package.json': '/dev/zero' })) {
    fs.mkdirSync(path.join(dir, 'node_modules', link, '..'), { recursive: true });
    fs.symlinkSync(target, path.join(dir, 'node_modules', link));
  }
  assert.equal(spawnSync('mkfifo', [path.join(dir, 'node_modules/fifo/package.json')]).status, 0);
  fs.truncateSync(path.join(dir, 'node_modules/big/huge.js'), 2 ** 32);
  const found = ok(dir, undefined, { timeout: 60_000 }).consumers.map((c) => `${c.name} ${c.uses}`);
  assert.deepEqual(found.sort(), [`big ${manifest.name}`, `in-deno ${manifest.name}`, `in-pnpm ${manifest.name}`]);
  // Past the time budget (a clock that jumps): callers not listed, never "none"; --require-native still answers.
  const clock = 'const now = Date.now; let n = 0; Date.now = () => now() + (++n > 3 ? 1e9 : 0);';
  const late = path.join(tree(t, { 'late.js': clock }), 'late.js');
  const run = cli(['--require-native', '--json'], { cwd: dir, nodeArgs: ['-r', late] });
  const report = JSON.parse(run.stdout);
  assert.equal(run.status, report.native ? 0 : 1);
  assert.equal(report.consumers, null);
  assert.match(report.unlisted, /^reading the tree took over 30 s \(\d+ folders\)/);
});

test('a project at the filesystem root (a Dockerfile without WORKDIR): the search for a bufferutil ends there', {
  skip: process.platform !== 'linux' && 'a root of its own needs Linux namespaces',
}, (t) => {
  // A root of its own: node and its libraries, the project at /, this package's command in /opt/pkg.
  const root = tree(t, wsAt('node_modules/ws', '8.21.3', false));
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
