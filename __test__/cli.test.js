'use strict';

// `npx bufferutil-simd` (bin/bufferutil-simd.js), run as a child process the way npx runs it: its report,
// its benchmark's ratios, and `--require-native`'s exit codes with and without the addon.

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
const resolves = (id) => {
  try {
    require.resolve(id, { paths: [ROOT] });
    return true;
  } catch {
    return false;
  }
};
const PEERS =
  resolves('ws') && resolves('bufferutil') ? false : 'ws and bufferutil 4.1.0 are not installed beside the package here';

/** The bin's `{ status, stdout, stderr }`; `env` is added to a copy of this process's, without BUFFERUTIL_SIMD_LEVEL. */
function cli(args, { nodeArgs = [], env = {}, cwd = ROOT } = {}) {
  const base = { ...process.env };
  delete base.BUFFERUTIL_SIMD_LEVEL;
  delete base.NODE_OPTIONS;
  const run = spawnSync(process.execPath, [...nodeArgs, BIN, ...args], { cwd, env: { ...base, ...env }, encoding: 'utf8' });
  assert.equal(run.error, undefined);
  return run;
}

/** A project whose `bufferutil` is this package under the alias, as `npm install bufferutil@npm:bufferutil-simd@^4.2.0` lays it out. */
function aliasedProject() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-cli-'));
  const alias = path.join(dir, 'node_modules', 'bufferutil');
  fs.mkdirSync(alias, { recursive: true });
  fs.writeFileSync(path.join(alias, 'package.json'), JSON.stringify({ name: manifest.name, version: manifest.version }));
  fs.writeFileSync(path.join(alias, 'index.js'), `module.exports = require(${JSON.stringify(ROOT)});`);
  return dir;
}

test('the manifest ships the bin as `bufferutil-simd`', () => {
  assert.equal(manifest.bin[manifest.name], 'bin/bufferutil-simd.js');
  assert.ok(manifest.files.includes('bin/'));
  assert.match(fs.readFileSync(BIN, 'utf8'), /^#!\/usr\/bin\/env node\n/);
});

test('the report: backend and addon file, core, ws and bufferutil of the project, a ratio per op and size', {
  skip: PEERS,
}, () => {
  const run = cli(['--quick']);
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout.split('\n');
  assert.match(
    lines[0],
    new RegExp(`^${manifest.name} ${manifest.version} · Node v[\\d.]+ · ${process.platform}-${process.arch} · \\S`)
  );
  const backend = run.stdout.match(/^backend +(\w+), the native addon: (.+\.node)$/m);
  assert.ok(backend, run.stdout);
  assert.match(backend[1], NATIVE);
  assert.ok(fs.existsSync(backend[2]), backend[2]);
  assert.match(run.stdout, hasCore ? /^core +http\.websocketMask: ws >= 8\.22\.1 uses it/m : /^core +no http\.websocketMask/m);
  // ws 8.23, the devDependency, takes core's function where Node has it.
  assert.match(
    run.stdout,
    hasCore
      ? /^ws +8\.\d+\.\d+ in this project: uses Node core/m
      : new RegExp(
          `^ws +8\\.\\d+\\.\\d+ in this project: loads bufferutil 4\\.\\d+\\.\\d+, not this package \\(to switch: ${literal(INSTALL)}\\)$`,
          'm'
        )
  );
  assert.match(run.stdout, /^bufferutil +bufferutil 4\.\d+\.\d+ in this project/m);
  assert.match(run.stdout, /^Speed-up of bufferutil-simd \w+ on .+ \(above 1: faster\)$/m);
  for (const op of ['mask', 'unmask']) {
    for (const size of ['64 B', '1 KiB', '64 KiB']) {
      // ns per call, ÷ ws's JS loop, ÷ bufferutil (its addon loads here: a devDependency), ÷ core where Node has it.
      const ratios = ' +\\d+\\.\\d\\d'.repeat(compared(true).length);
      assert.match(run.stdout, new RegExp(`^${size} +${op} +[\\d.]+${ratios}$`, 'm'), run.stdout);
    }
  }
});

test('--json: one object, ratios to the JS loop and bufferutil as positive numbers', { skip: PEERS }, () => {
  const run = cli(['--json', '--quick']);
  assert.equal(run.status, 0, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.equal(report.package.version, manifest.version);
  assert.match(report.backend, NATIVE);
  assert.equal(report.native, true);
  assert.ok(fs.existsSync(report.addon));
  assert.equal(report.reason, null);
  assert.equal(report.websocketMask, hasCore);
  assert.equal(report.ws.bypasses, hasCore);
  assert.equal(report.ws.uses, hasCore ? 'core' : 'bufferutil');
  assert.equal(report.bufferutil.name, 'bufferutil');
  assert.equal(report.bufferutil.addon, true);
  assert.ok(report.cpu.length > 0 && report.bench.cpu === report.cpu);
  assert.equal(report.bench.results.length, 6);
  for (const { op, size, ns, ratios } of report.bench.results) {
    assert.ok(['mask', 'unmask'].includes(op) && [64, 1024, 65536].includes(size));
    assert.ok(ns > 0, `${op} ${size}: ${ns} ns`);
    assert.deepEqual(Object.keys(ratios), compared(true));
    for (const ratio of Object.values(ratios)) assert.ok(Number.isFinite(ratio) && ratio > 0, `${op} ${size}: ${ratio}`);
  }
});

test('--require-native exits 0 where the addon loads, and skips the benchmark', () => {
  const run = cli(['--require-native']);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^backend +\w+, the native addon: /m);
  assert.doesNotMatch(run.stdout, /Speed-up/);
  assert.equal(run.stderr, '');
  const json = JSON.parse(cli(['--require-native', '--json']).stdout);
  assert.equal(json.bench, undefined);
});

test('--require-native exits 1 under node --no-addons, with the loader error and the fix', () => {
  const run = cli(['--require-native'], { nodeArgs: ['--no-addons'] });
  assert.equal(run.status, 1);
  assert.match(run.stdout, /^backend +wasm, NO native addon$/m);
  assert.match(run.stdout, /why: Cannot load native addon because loading addons is disabled/);
  assert.doesNotMatch(run.stdout, /Install /);
  assert.match(run.stdout, /fix: run Node without --no-addons/);
  assert.match(run.stderr, /--require-native: backend is wasm, not the native addon/);
});

test('--require-native exits 1 with BUFFERUTIL_SIMD_LEVEL=wasm, saying so in --json', () => {
  const run = cli(['--require-native', '--json'], { env: { BUFFERUTIL_SIMD_LEVEL: 'wasm' } });
  assert.equal(run.status, 1);
  const report = JSON.parse(run.stdout);
  assert.equal(report.backend, 'wasm');
  assert.equal(report.native, false);
  assert.equal(report.addon, null);
  assert.match(report.reason, /BUFFERUTIL_SIMD_LEVEL=wasm/);
  assert.match(report.fix, /unset BUFFERUTIL_SIMD_LEVEL/);
});

test('the benchmark runs without the addon too (WebAssembly against the JS loop)', { skip: PEERS }, () => {
  const report = JSON.parse(cli(['--json', '--quick'], { nodeArgs: ['--no-addons'] }).stdout);
  assert.equal(report.backend, 'wasm');
  // bufferutil's own addon cannot load under --no-addons either: it is its JS fallback, not compared.
  assert.equal(report.bufferutil.addon, false);
  for (const { ratios } of report.bench.results) assert.deepEqual(Object.keys(ratios), compared(false));
});

test('this package aliased as bufferutil is named as such and not timed against itself', (t) => {
  const dir = aliasedProject();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = cli(['--json', '--quick'], { cwd: dir });
  assert.equal(run.status, 0, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.equal(report.bufferutil.name, manifest.name);
  assert.equal(report.ws, null);
  for (const { ratios } of report.bench.results) assert.deepEqual(Object.keys(ratios), compared(false));
  const text = cli(['--no-bench'], { cwd: dir }).stdout;
  assert.match(text, new RegExp(`^bufferutil +${manifest.name} ${manifest.version} in this project`, 'm'));
  assert.match(text, /^ws +none in this project$/m);
});

test("what the project's ws runs: this package under the alias, or a JavaScript loop without any bufferutil", (t) => {
  // ws 8.21 has no core path: it loads whatever `bufferutil` resolves to, on every Node line.
  const withWs = (dir) => {
    fs.mkdirSync(path.join(dir, 'node_modules', 'ws'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'node_modules', 'ws', 'package.json'), JSON.stringify({ name: 'ws', version: '8.21.0' }));
    return dir;
  };
  const aliased = withWs(aliasedProject());
  const bare = withWs(fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-cli-')));
  t.after(() => [aliased, bare].forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
  const ws = (dir) => JSON.parse(cli(['--json', '--no-bench'], { cwd: dir }).stdout).ws;
  assert.deepEqual(ws(aliased), { version: '8.21.0', bypasses: false, uses: manifest.name });
  assert.deepEqual(ws(bare), { version: '8.21.0', bypasses: false, uses: 'js' });
  assert.match(cli(['--no-bench'], { cwd: aliased }).stdout, /^ws +8\.21\.0 in this project: loads bufferutil: this package$/m);
  const text = cli(['--no-bench'], { cwd: bare }).stdout;
  const loop = `finds no bufferutil addon: a JavaScript loop runs (to use this package: ${INSTALL})`;
  assert.match(text, new RegExp(`^ws +8\\.21\\.0 in this project: ${literal(loop)}$`, 'm'));
  assert.match(text, /^bufferutil +none in this project$/m);
  // ws's own switch turns every bufferutil off.
  const off = { env: { WS_NO_BUFFER_UTIL: '1' } };
  assert.equal(JSON.parse(cli(['--json', '--no-bench'], { cwd: aliased, ...off }).stdout).ws.uses, 'js');
  const skipped = cli(['--no-bench'], { cwd: aliased, ...off }).stdout;
  assert.match(skipped, /^ws +8\.21\.0 in this project: skips bufferutil \(WS_NO_BUFFER_UTIL is set\): a JavaScript loop runs$/m);
});

test("another copy of the package in the project reports itself (the bin of a global install or npx's own copy)", (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-cli-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const copy = path.join(dir, 'node_modules', 'bufferutil');
  fs.mkdirSync(path.join(copy, 'cli'), { recursive: true });
  // Its bin where its manifest says, an option this copy does not know, and this process's Node flags.
  const bin = { [manifest.name]: 'cli/report.js' };
  fs.writeFileSync(path.join(copy, 'package.json'), JSON.stringify({ name: manifest.name, version: '4.9.9', bin }));
  const stub = 'console.log(JSON.stringify([process.execArgv, process.argv.slice(2)])); process.exit(3);';
  fs.writeFileSync(path.join(copy, 'cli', 'report.js'), stub);
  const run = cli(['--json', '--an-option-of-4.9.9'], { cwd: dir, nodeArgs: ['--no-addons'] });
  assert.equal(run.status, 3);
  assert.deepEqual(JSON.parse(run.stdout), [['--no-addons'], ['--json', '--an-option-of-4.9.9']]);
  const where = [dir, fs.realpathSync(dir)].map(literal).join('|');
  assert.match(run.stderr, new RegExp(`^${manifest.name}: reporting on this project's copy, (?:${where})[\\\\/]`, 'm'));
});

test('a copy with no addon and no platform packages: the fix for --no-addons, for a clone and for a packed clone', (t) => {
  // No addon beside it and no platform package to find: no candidate reaches dlopen.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-cli-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const entry of ['bin', 'lib', 'index.js']) fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  // The manifest as a clone has it (an installed copy's names its platform packages).
  const { optionalDependencies: _, ...cloneManifest } = manifest;
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(cloneManifest));
  const fix = (nodeArgs) => {
    const run = spawnSync(
      process.execPath,
      [...nodeArgs, path.join(dir, 'bin', 'bufferutil-simd.js'), '--json', '--require-native'],
      {
        cwd: dir,
        encoding: 'utf8',
      }
    );
    assert.equal(run.status, 1);
    return JSON.parse(run.stdout).fix;
  };
  assert.equal(fix(['--no-addons']), 'run Node without --no-addons');
  // The manifest a clone packs names no platform packages: reinstalling would not bring one.
  assert.match(fix([]), /^this copy names no platform packages; .*"Try a local build in an app"$/);
  fs.writeFileSync(path.join(dir, 'Cargo.toml'), '');
  assert.equal(fix([]), 'build the addon: npm run build');
});

test('--help prints the options; an unknown option or a budget of 0 exits 2', () => {
  const help = cli(['--help']);
  assert.equal(help.status, 0);
  for (const option of ['--require-native', '--json', '--quick', '--seconds=S', '--no-bench'])
    assert.ok(help.stdout.includes(option), option);
  const bad = cli(['--frobnicate']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown option --frobnicate/);
  // A budget of nothing would time nothing.
  const none = cli(['--seconds=0', '--no-bench']);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /^--seconds=0: the budget is --seconds=S, S > 0$/m);
  assert.equal(cli(['--seconds=0.5', '--no-bench']).status, 0);
  // As most command lines take a value: after a space.
  assert.equal(cli(['--seconds', '0.5', '--no-bench']).status, 0);
  assert.match(cli(['--seconds', '0', '--no-bench']).stderr, /^--seconds=0: the budget is --seconds=S, S > 0$/m);
  assert.match(cli(['--no-bench', '--seconds']).stderr, /^--seconds: the budget is --seconds=S, S > 0$/m);
  // Any positive number a user would write; nothing else.
  for (const seconds of ['.5', '5.', '1e-1']) assert.equal(cli([`--seconds=${seconds}`, '--no-bench']).status, 0, seconds);
  for (const seconds of ['-1', 'x', 'Infinity', '']) assert.equal(cli([`--seconds=${seconds}`, '--no-bench']).status, 2, seconds);
});

test('bench.js and e2e.js refuse, before running anything, an unknown option, an option without its value, and sizes no case has', {
  skip: !fs.existsSync(path.join(ROOT, 'benchmark')) && 'no benchmark/ here (the installed layout)',
}, () => {
  const run = (file, args) =>
    spawnSync(process.execPath, [path.join(ROOT, 'benchmark', file), ...args], { encoding: 'utf8', timeout: 60_000 });
  // e2e.js runs where undici has a pin for this Node (20.18 and later).
  const e2e = (() => {
    try {
      return Boolean(require('./helpers/masking-patches').undiciPin());
    } catch {
      return false;
    }
  })();
  for (const [file, args, why] of [
    ['bench.js', ['--frobnicate'], /Unknown option '--frobnicate'.*; the options: .*--json/],
    ['bench.js', ['--json'], /'--json <value>' argument missing/],
    ['e2e.js', ['--views'], /'--views <value>' argument missing/],
    ['e2e.js', ['--sizes=3'], /--sizes=3 leaves no case/],
  ].filter(([file]) => e2e || file !== 'e2e.js')) {
    const result = run(file, args);
    assert.equal(result.status, 2, `${file} ${args}: ${result.stdout}${result.stderr}`);
    assert.match(result.stderr, why);
  }
});

test("bench.js --from --svg: the README's chart from the committed runs, its CPU in the title", {
  skip: !fs.existsSync(path.join(ROOT, 'benchmark')) && 'no benchmark/ here (the installed layout)',
}, (t) => {
  const results = path.join(ROOT, 'benchmark', 'results');
  const runs = fs.readdirSync(results).filter((name) => /^bench-.+\.json$/.test(name));
  assert.ok(runs.length > 0, 'benchmark/results/bench-*.json');
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-chart-')), 'chart.svg');
  t.after(() => fs.rmSync(path.dirname(out), { recursive: true, force: true }));
  const from = runs.map((name) => path.join(results, name)).join(',');
  const run = spawnSync(process.execPath, [path.join(ROOT, 'benchmark', 'bench.js'), `--from=${from}`, `--svg=${out}`], {
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  const svg = fs.readFileSync(out, 'utf8');
  const { cpu } = JSON.parse(fs.readFileSync(path.join(results, runs[0]), 'utf8'));
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.ok(svg.includes(`CPU: ${cpu}`), 'the title names the CPU');
  // A line per run in each op's panel.
  assert.equal((svg.match(/<path d="M[^"]*" fill="none"/g) ?? []).length, runs.length * 3);
  assert.ok(svg.trimEnd().endsWith('</svg>'));
});
