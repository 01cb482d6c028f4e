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
const { name: NAME, version: VERSION } = manifest;
const SPEC = `npm:${NAME}@^${VERSION}`;
const BU = 'node_modules/bufferutil';
const hasCore = typeof require('node:http').websocketMask === 'function';
const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PEERS = ['ws', 'bufferutil'].every((id) => fs.existsSync(path.join(ROOT, 'node_modules', id, 'package.json')))
  ? false
  : 'ws and bufferutil 4.1.0 are not installed beside the package here';

/** The command run by this Node; `env` is added to this process's, less BUFFERUTIL_SIMD_LEVEL and NODE_OPTIONS. */
function cli(args, { nodeArgs = [], env = {}, cwd = ROOT, timeout } = {}) {
  const { BUFFERUTIL_SIMD_LEVEL, NODE_OPTIONS, ...base } = process.env;
  const options = { cwd, env: { ...base, ...env }, encoding: 'utf8', timeout };
  const run = spawnSync(process.execPath, [...nodeArgs, BIN, ...args], options);
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
  assert.match(run.stderr, new RegExp(`^${NAME}: [^\\n]*${literal(why)}[^\\n]*\\n$`));
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

/** A package in `at`, named as its folder in node_modules, holding `files` (by default an index.js requiring bufferutil). */
const pkg = (at, version = '1.0.0', files = { 'index.js': "require('bufferutil')" }) => ({
  [`${at}/package.json`]: { name: at.split('node_modules/').pop(), version },
  ...Object.fromEntries(Object.entries(files).map(([file, text]) => [`${at}/${file}`, text])),
});

/** A caller as the report lists it, in node_modules/`name` unless `at` says where. */
function caller(name, version, uses, bufferutil = BU, at = `node_modules/${name}`) {
  return { name, version, path: at, uses, bufferutil };
}

// ws as its lib/buffer-util.js takes a bufferutil: 8.22.1 and later look for core's function first.
const WS_CORE = "const { websocketMask } = require('http');\nif (websocketMask) {} else ";
const WS_LIB = "if (!process.env.WS_NO_BUFFER_UTIL) {\n  const bufferUtil = require('bufferutil');\n}\n";
const wsAt = (at, version, core) => pkg(at, version, { 'lib/buffer-util.js': `${core ? WS_CORE : ''}${WS_LIB}` });

/** A --quick benchmark: per op and size, this package's ns and per column (`columns`, then core's) a ratio in its range. */
function benched({ cpu, bench }, columns) {
  const ids = [...columns, ...(hasCore ? ['core'] : [])];
  const inRange = ({ ns, ratios, range }) =>
    ns > 0 && ids.every((id) => 0 < range[id][0] && range[id][0] <= ratios[id] && ratios[id] <= range[id][1]);
  const cells = bench.results.map((cell) => [cell.op, cell.size, Object.keys(cell.ratios), inRange(cell), typeof cell.noisy]);
  const expected = ['mask', 'unmask'].flatMap((op) => [64, 1024, 65536].map((size) => [op, size, ids, true, 'boolean']));
  assert.deepEqual([bench.cpu, bench.rounds, cells], [cpu, 3, expected]);
}

test('the bin is `bufferutil-simd`; -h lists the options; a budget is any positive number, after `=` or a space; else exit 2', () => {
  assert.equal(manifest.bin[NAME], 'bin/bufferutil-simd.js');
  assert.ok(manifest.files.includes('bin/'));
  assert.match(fs.readFileSync(BIN, 'utf8'), /^#!\/usr\/bin\/env node\n/);
  const usage = ok(ROOT, ['-h']);
  assert.equal(ok(ROOT, ['--help']), usage);
  assert.match(usage, /--require-native .* --no-bench .* --seconds=S .* --quick .* --json .* --help .* bunx --bun /s);
  const refused = (why) => [2, `${NAME}: ${why}; --help lists the options\n`];
  const budget = (value) => refused(`--seconds=${value}: the budget is S > 0`);
  const runs = { '--seconds': refused("Option '--seconds <value>' argument missing"), '--seconds 0': budget(0) };
  for (const value of ['0', '-1', 'x', 'Infinity', '']) runs[`--seconds=${value}`] = budget(value);
  for (const value of ['=0.5', ' 0.5', '=.5', '=5.', '=1e-1']) runs[`--seconds${value}`] = [0, ''];
  for (const [args, expected] of Object.entries(runs)) {
    const run = cli(['--no-bench', ...args.split(' ')]);
    assert.deepEqual([run.status, run.stderr], expected, args);
  }
  failed(cli(['--frobnicate', '--json']), 2, 'unknown option --frobnicate; --help lists the options');
});

test("this repository's report, --json and text: addon, core, callers, switch; each ratio in its range", { skip: PEERS }, () => {
  const report = ok(ROOT, ['--json', '--quick']);
  assert.ok(/^(avx512|avx2|sse2|neon|scalar)$/.test(report.backend) && fs.existsSync(report.addon), report.backend);
  const { ws, bufferutil } = manifest.devDependencies;
  const top = { name: 'bufferutil', version: bufferutil, path: BU };
  const callers = { consumers: [caller('ws', ws, hasCore ? 'core' : 'bufferutil')], unlisted: null, bufferutil: top };
  const addon = { native: true, reason: null, fix: null, websocketMask: hasCore, project: fs.realpathSync(ROOT), manager: 'npm' };
  assert.deepEqual(report, { ...report, ...addon, ...callers, switch: hasCore ? null : `npm install bufferutil@${SPEC}` });
  benched(report, ['js', 'bufferutil']);
  benched(ok(ROOT, ['--json', '--quick'], { nodeArgs: ['--no-addons'] }), ['js']); // the original's fallback is not timed
  const text = ok(ROOT, ['--quick']);
  const core = hasCore ? 'http\\.websocketMask: ws >= 8\\.22\\.1 uses it' : 'no http\\.websocketMask';
  assert.match(text, new RegExp(`^backend +${report.backend}, the native addon: ${literal(report.addon)}\ncore +${core}`, 'm'));
  const cells = ' +\\d+\\.\\d\\d \\(\\d+\\.\\d\\d-\\d+\\.\\d\\d\\)'.repeat(hasCore ? 3 : 2);
  const rows = ['mask', 'unmask'].flatMap((op) => ['64 B', '1 KiB', '64 KiB'].map((size) => `${size} +${op} +[\\d.]+${cells}\n`));
  assert.match(text, new RegExp(`^${rows.join('')}Median of 3 rounds \\(lowest-highest\\)\\.$`, 'm'));
});

test('aliased as bufferutil: not timed against itself; every caller, nested or hoisted, what it loads, each manager’s switch', (t) => {
  const dir = tree(t);
  copyOf(path.join(dir, BU));
  const report = ok(dir, ['--json', '--quick']);
  assert.deepEqual([report.bufferutil, report.consumers], [{ name: NAME, version: VERSION, path: BU }, []]);
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
  const callers = (env) => ok(dir, undefined, { env }).consumers.sort((a, b) => (a.path < b.path ? -1 : 1));
  assert.deepEqual(callers(), [
    caller('@scope/bundled', '1.0.0', NAME),
    caller('ws', '8.21.3', NAME, BU, 'node_modules/engine.io-client/node_modules/ws'),
    caller('old', '1.0.0', 'bufferutil', 'node_modules/old/node_modules/bufferutil'),
    caller('websocket', '1.0.35', NAME),
    caller('ws', '8.23.1', hasCore ? 'core' : NAME),
  ]);
  // ws's own switch turns its bufferutil off; WebSocket-Node reads no such switch.
  const off = callers({ WS_NO_BUFFER_UTIL: '1' }).map(({ uses }) => uses);
  assert.deepEqual(off, [NAME, 'off', 'bufferutil', NAME, hasCore ? 'core' : 'off']);
  const text = ok(dir, ['--no-bench']);
  assert.match(text, new RegExp(`^callers +${hasCore ? 3 : 4} of 5 that require bufferutil load this package:$`, 'm'));
  assert.match(text, /^ {2}old 1\.0\.0 \(node_modules\/old\): loads the original bufferutil, not this package/m);
  assert.ok(text.includes(`\n  to switch every caller (npm): "overrides": { "bufferutil": "${SPEC}" } in package.json`));
  // Each manager's way to pin every copy (old's nested original included), known by its lockfile: each added to those
  // before, which it outranks in docs/check.md's order; Yarn PnP's zip archives go unread.
  const pin = (field) => `"${field}": { "bufferutil": "${SPEC}" } in package.json, then reinstall`;
  const pnpm = `overrides: { bufferutil: ${SPEC} } in pnpm-workspace.yaml, then reinstall`;
  for (const [lockfile, manager, fix] of [
    ['package-lock.json', 'npm', pin('overrides')],
    ['bun.lock', 'bun', pin('overrides')],
    ['yarn.lock', 'yarn', pin('resolutions')],
    ['deno.lock', 'deno', pin('overrides')],
    ['pnpm-lock.yaml', 'pnpm', pnpm],
    ['.pnp.cjs', 'yarn-pnp', pin('resolutions')],
  ]) {
    const report = ok(write(dir, { [lockfile]: '' }));
    assert.deepEqual([report.manager, report.switch], [manager, fix]);
  }
  assert.match(ok(dir, ['--no-bench']), /^callers +not listed: Yarn PnP keeps packages in zip archives/m);
  const pinned = ok(write(dir, { 'package.json': { name: 'app', resolutions: { bufferutil: SPEC } } }));
  assert.deepEqual([pinned.consumers, pinned.switch], [null, null]);
  // The original at the top: the manager's own command adds this package.
  fs.rmSync(path.join(dir, '.pnp.cjs'));
  write(dir, { [`${BU}/package.json`]: { name: 'bufferutil', version: '4.1.0' } });
  assert.equal(ok(dir).switch, `pnpm add bufferutil@${SPEC}, and ${pnpm}`);
});

test('--require-native, a CI gate: exit 1 without the addon, one line ending in the fix; the project’s copy judged, its entry alone run', (t) => {
  // A caller whose manifest holds bidirectional controls, and an object where a string belongs.
  const odd = { name: 'od\u202ed\u2066', version: { toString: 1 } };
  const dir = tree(t, { ...pkg('node_modules/odd'), 'node_modules/odd/package.json': odd });
  const ran = (file) => `require('fs').writeFileSync(${JSON.stringify(path.join(dir, `${file}.ran`))}, '');`;
  // The project's copy: no addon beside it and, as a clone's manifest has it, no platform packages named; a bin that must
  // not run, a version with an escape sequence. No warning repeats what the report says, and no control character prints.
  const changes = { version: '4.9.9\u001b[31m\r', bin: { [NAME]: '../../evil.js' }, optionalDependencies: undefined };
  const copy = copyOf(path.join(dir, BU), changes);
  write(dir, { 'evil.js': ran('bin') });
  const run = cli(['--no-bench'], { cwd: dir });
  assert.deepEqual([run.status, run.stderr], [0, '']);
  const whose = `4\\.9\\.9\\[31m \\(the project's copy: ${literal(fs.realpathSync(copy))}\\)`;
  assert.match(run.stdout, new RegExp(`^${NAME} ${whose} · Node v[\\d.]+ · ${process.platform}-${process.arch} · \\S`));
  assert.doesNotMatch(run.stdout.replaceAll('\n', ''), /[\p{Cc}\p{Cf}]/u);
  assert.match(run.stdout, /^ {2}odd \{"toString":1\} \(node_modules\/odd\): loads this package$/m);
  const why = `^backend +wasm, NO native addon\n {2}why: No ${NAME} addon loads on [^]*\n {2}fix: this copy names no platform`;
  assert.match(run.stdout, new RegExp(why, 'm'));
  const required = cli(['--json', '--no-bench'], { cwd: dir, env: { BUFFERUTIL_SIMD_REQUIRE_NATIVE: '1' } });
  const gated = failed(required, 1, 'BUFFERUTIL_SIMD_REQUIRE_NATIVE=1: backend is wasm, not the native addon. this copy');
  assert.equal(gated.package.version, changes.version);
  // Per way the addon was lost, the fix --require-native's line ends with; a clone's Cargo.toml outranks the rest.
  const platform = { [`${BU}/package.json`]: { ...manifest, optionalDependencies: { [`${NAME}-platform`]: VERSION } } };
  const [level] = [
    [{ env: { BUFFERUTIL_SIMD_LEVEL: 'wasm' } }, 'unset BUFFERUTIL_SIMD_LEVEL'],
    [{ nodeArgs: ['--no-addons'] }, 'run Node without --no-addons'],
    [{}, 'this copy names no platform packages; pack it per CONTRIBUTING.md, "Try a local build in an app"'],
    [{ files: platform }, `Install ${NAME}-`], // the loader's own fix (__test__/loader.test.js)
    [{ files: { [`${BU}/Cargo.toml`]: '' } }, 'build the addon: npm run build'],
  ].map(([{ files = {}, ...options }, fix]) => {
    const run = cli(['--json', '--require-native'], { cwd: write(dir, files), ...options });
    return failed(run, 1, `--require-native: backend is wasm, not the native addon. ${fix}`);
  });
  const expected = [false, null, 'BUFFERUTIL_SIMD_LEVEL=wasm asks for it', false];
  assert.deepEqual([level.native, level.addon, level.reason, 'bench' in level], expected);
  copyOf(copy, { main: '../../evil.js' });
  assert.match(failed(cli(['--json', '--no-bench'], { cwd: dir }), 1, '').error, /: its entry lies outside it$/);
  // A copy that is not this package is not loaded, and the original's entry is timed only from inside its folder.
  fs.rmSync(copy, { recursive: true });
  const original = { name: 'bufferutil', version: '4.1.0' };
  write(copy, { 'package.json': { ...original, main: '../../evil.js' }, 'index.js': ran('bufferutil'), 'fallback.js': '' });
  ok(dir, ['--quick']);
  write(copy, { 'package.json': original });
  const loads = ok(dir, ['--require-native', '--bench', '--quick', '--json']);
  assert.deepEqual([fs.realpathSync(loads.package.dir), loads.bench.rounds], [fs.realpathSync(ROOT), 3]);
  assert.ok(!fs.readdirSync(dir).some((file) => file.endsWith('.ran')), 'ran code from the project');
  // The project is the nearest folder at or above the working directory with a package.json; a node_modules above it decides
  // nothing: not the copy, not what a caller there loads.
  copyOf(copy, { version: '4.9.9' });
  const app = write(path.join(dir, 'app'), { 'package.json': '{}', ...pkg('node_modules/ws', '8.21.0') });
  const report = ok(path.join(app, 'node_modules'));
  assert.deepEqual([report.package.version, report.consumers], [VERSION, [caller('ws', '8.21.0', 'none', null)]]);
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
    const dir = tree(t);
    copyOf(path.join(dir, BU));
    const reads = (at) => ({ cwd: dir, nodeArgs: ['--no-warnings', flag, `--allow-fs-read=${at}`] });
    failed(cli(['--json', '--no-bench'], reads(`${ROOT}${path.sep}*`)), 1, 'FileSystemRead');
    assert.equal(ok(dir, undefined, reads('*')).package.dir, fs.realpathSync(path.join(dir, BU)));
  }
  const refused = ok(ROOT, ['--quick'], { nodeArgs: ['--disallow-code-generation-from-strings'] });
  assert.match(refused, /^No benchmark: code generation from strings is disallowed here/m);
  const project = tree(t, pkg(BU, '4.1.0', { 'index.js': 'exports.mask = exports.unmask = () => {};' }));
  failed(cli(['--json', '--quick'], { cwd: project }), 1, 'bufferutil mask of 1 B differs from the byte loop; nothing timed');
});

test('the walk ends: link cycles in any store, a manifest that is no regular file, a 4 GiB source, a tree past the time budget', {
  skip: process.platform === 'win32' && 'POSIX symbolic links and FIFOs',
}, (t) => {
  const dir = tree(t, {
    ...pkg('node_modules/.pnpm/a/node_modules/in-pnpm'),
    ...pkg('node_modules/.deno/a/node_modules/in-deno'),
    ...pkg('node_modules/big', '1.0.0', { 'index.js': "require('bufferutil')", 'huge.js': '' }),
    'node_modules/zero/index.js': "require('bufferutil')",
    'node_modules/fifo/index.js': "require('bufferutil')",
  });
  copyOf(path.join(dir, BU));
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
  assert.deepEqual(found.sort(), [`big ${NAME}`, `in-deno ${NAME}`, `in-pnpm ${NAME}`]);
  // Past the time budget (a clock that jumps): callers not listed, never "none"; --require-native still answers.
  write(dir, { 'late.js': 'const now = Date.now; let n = 0; Date.now = () => now() + (++n > 3 ? 1e9 : 0);' });
  const run = cli(['--require-native', '--json'], { cwd: dir, nodeArgs: ['-r', path.join(dir, 'late.js')] });
  const report = JSON.parse(run.stdout);
  assert.deepEqual([run.status, report.consumers], [report.native ? 0 : 1, null]);
  assert.match(report.unlisted, /^reading the tree took over 30 s \(\d+ folders\)/);
});

test('a project at the filesystem root (a Dockerfile without WORKDIR): the search for a bufferutil ends there', {
  skip: process.platform !== 'linux' && 'a root of its own needs Linux namespaces',
}, (t) => {
  // A root of its own: node and its libraries, the project at /, this package's command in /opt/pkg.
  const root = tree(t, pkg('node_modules/ws', '8.21.3'));
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
  assert.deepEqual([project, consumers], ['/', [caller('ws', '8.21.3', 'none', null)]]);
});
