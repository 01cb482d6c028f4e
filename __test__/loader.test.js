'use strict';

// lib/tiers/addon.js's lookup, in installed layouts made in a temporary folder: which addon loads, and what a
// lost one says. (The same rules inside bundles: __test__/integration/bundlers.js.)

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnNode, spawnLines } = require('./helpers/child');
const { ROOT: root } = require('./helpers/implementations');

const manifest = require('../package.json');
const { name: NAME, version: VERSION } = manifest;
const read = (file) => fs.readFileSync(path.join(root, file), 'utf8');
const addon = fs.readdirSync(root).find((file) => file.startsWith(`${NAME}.`) && file.endsWith('.node'));
const platform = addon?.slice(NAME.length + 1, -'.node'.length);
const skip = !addon && 'no addon built';
const NO_ADDON = /\[BUFFERUTIL_SIMD_NO_ADDON\] Warning: /g;
const INSTALL = `Install ${NAME}-${platform}@${VERSION} where this code runs`;
const BACKEND = `process.stdout.write(require(${JSON.stringify(NAME)}).backend)`;
const esc = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const DISABLE = process.allowedNodeEnvironmentFlags.has('--disable-warning');

/** The folder of the apps; an app without a platform package, and one with it at this version (where an addon is built). */
let work, bare, matching;
before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-loader-'));
  bare = app('bare');
  if (addon) matching = app('matching', { version: VERSION });
});
after(() => {
  if (work && !process.env.KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

/** An app folder with this package installed (the clone's build beside it if `build`, its manifest's name `name`), and its
 * platform package at `version` (none: undefined). */
function app(folder, { version, addonBytes, main, build = false, name = NAME } = {}) {
  const dir = path.join(work, folder);
  const pkg = path.join(dir, 'node_modules', NAME);
  fs.mkdirSync(pkg, { recursive: true });
  for (const entry of ['index.js', 'portable.js', 'lib', ...(build ? [addon] : [])]) {
    fs.cpSync(path.join(root, entry), path.join(pkg, entry), { recursive: true });
  }
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ ...manifest, name }));
  if (version !== undefined) {
    const platformDir = path.join(dir, 'node_modules', `${NAME}-${platform}`);
    fs.mkdirSync(platformDir);
    const platformManifest = require(path.join(root, 'npm', platform, 'package.json'));
    main ??= platformManifest.main;
    fs.writeFileSync(path.join(platformDir, 'package.json'), JSON.stringify({ ...platformManifest, version, main }));
    fs.writeFileSync(path.join(platformDir, main), addonBytes ?? fs.readFileSync(path.join(root, addon)));
  }
  return dir;
}

/** `node [args] -e script` in `dir` with `env`, and no BUFFERUTIL_SIMD_*, NODE_DEBUG or NODE_OPTIONS from here. */
const node = (dir, script, { args, env } = {}) => spawnNode(script, { cwd: dir, args, env, clean: true });

function preload(name, code) {
  const file = path.join(work, `${name}.js`);
  fs.writeFileSync(file, code);
  return ['--require', file];
}

/** The package loaded in `dir` under NODE_DEBUG=bufferutil-simd: its backend, stderr, and the loader's error as
 * NODE_DEBUG says it, the last word before it says that WebAssembly runs (undefined if it does not). */
function probe(dir, id = NAME) {
  const run = node(dir, `process.stdout.write(require(${JSON.stringify(id)}).backend)`, { env: { NODE_DEBUG: NAME } });
  assert.equal(run.status, 0, run.stderr);
  const error = /^BUFFERUTIL-SIMD \d+: no addon: ([\s\S]*?)\nBUFFERUTIL-SIMD \d+: tier wasm$/m.exec(run.stderr)?.[1];
  return { backend: run.stdout, stderr: run.stderr, error };
}

test("lib/version.js, Cargo.toml, Cargo.lock and the docs' install lines hold package.json's version", () => {
  assert.equal(require('../lib/version').version, VERSION, 'run `node scripts/version.js`');
  // An installed copy has no Cargo files.
  if (!fs.existsSync(path.join(root, 'Cargo.lock'))) return;
  for (const file of ['Cargo.toml', 'Cargo.lock']) {
    assert.match(read(file), new RegExp(`name = "${NAME}"\nversion = "${VERSION}"`), `${file}: run \`node scripts/version.js\``);
  }
  const docs = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).map((name) => `docs/${name}`)];
  const named = docs.flatMap((file) => [...read(file).matchAll(/bufferutil-simd@\^?(\d+\.\d+\.\d+)/g)].map((m) => [file, ...m]));
  assert.ok(named.length > 0, 'no bufferutil-simd@X.Y.Z in the docs');
  for (const [file, text, version] of named) assert.equal(version, VERSION, `${file}: ${text}`);
});

test('a lost addon: WebAssembly, one warning with the reason and the fix, the last word of NODE_DEBUG', { skip }, () => {
  const whole = fs.readFileSync(path.join(root, addon));
  const half = (bytes) => ({ version: VERSION, addonBytes: bytes.subarray(0, bytes.length >> 1) });
  // ELFCLASS32, big-endian: one PT_LOAD of 8192 B in a file of 128.
  const elf32 = Buffer.alloc(128);
  elf32.set([0x7f, 0x45, 0x4c, 0x46, 1, 2]);
  elf32.writeUInt32BE(52, 28);
  elf32.writeUInt16BE(32, 42);
  elf32.writeUInt16BE(1, 44);
  elf32.writeUInt32BE(1, 52);
  elf32.writeUInt32BE(8192, 68);
  const stale = (exported) => ({ version: VERSION, main: 'stale.js', addonBytes: `module.exports = ${exported};` });
  const other = app('other-version', { version: '4.0.0-other', addonBytes: 'not an addon' });
  const otherAt = path.join(fs.realpathSync(other), 'node_modules', `${NAME}-${platform}`);
  const REINSTALL = `${NAME}-${platform} is there but does not load (damaged, cut short or another build): reinstall it`;
  const CUT = '\\d+ B, but its ELF headers say \\d+: cut short[^\\n]*';
  const STALE = 'addon interface (undefined|1), not \\d+ \\(built from other sources\\): not used';
  for (const [dir, reason, fix] of [
    [bare, 'Cannot find module [^\\n]*', `${INSTALL}: npm installs it with ${NAME} as an optional dependency`],
    // Of this version, but not of this interface (an earlier build of it): required, not called into.
    [app('stale-no-interface', stale('{ bind: () => ({ mask() {}, unmask() {}, backend: "avx2" }) }')), STALE, REINSTALL],
    [app('stale-interface-1', stale('{ interface: 1, bind: () => { throw new Error("stale"); } }')), STALE, REINSTALL],
    // Of another version, and no addon: opened, it would fail for another reason than the version.
    [other, `version 4\\.0\\.0-other, not ${VERSION}: not loaded \\(${esc(otherAt)}\\)`, INSTALL],
    // Cut short (dlopen would die of SIGBUS): as is, as `sstrip` leaves it (only the PT_LOAD segments tell), and 32-bit.
    ...[
      [app('cut', half(whole)), CUT, REINSTALL],
      [app('cut-stripped', half(Buffer.from(whole).fill(0, 40, 48).fill(0, 60, 62))), CUT, REINSTALL],
      [app('cut-elf32', { version: VERSION, addonBytes: elf32 }), CUT, REINSTALL],
    ].filter(() => platform.startsWith('linux')),
  ]) {
    const { backend, stderr, error } = probe(dir);
    assert.equal(backend, 'wasm', dir);
    assert.match(error, new RegExp(`^No ${NAME} addon loads on [^]*\\n  ${NAME}-${platform}: ${reason}\\n  ${esc(fix)}[^\\n]*$`));
    // No clone build outside a clone, no musl build beside glibc.
    assert.doesNotMatch(error, platform.endsWith('-gnu') ? /\.\.\/bufferutil-simd\.|-musl/ : /\.\.\/bufferutil-simd\./);
    assert.equal(stderr.match(NO_ADDON)?.length, 1, stderr);
    // --disable-warning offered where the runtime takes it.
    const flag = DISABLE ? ', or --disable-warning=BUFFERUTIL_SIMD_NO_ADDON' : '';
    const warning = `${NAME} runs on WebAssembly, slower than bufferutil for large payloads: ${error}\n  To silence this: BUFFERUTIL_SIMD_LEVEL=wasm${flag}.\n`;
    assert.ok(stderr.includes(warning), stderr);
  }
  // Without WebAssembly SIMD (Node's --jitless; Bun has none) JavaScript runs; where the runtime takes no
  // --disable-warning (Node 18), only the level is offered.
  const jitless = process.versions.bun ? [] : ['--jitless'];
  const noFlag = preload('no-flag', "Object.defineProperty(process, 'allowedNodeEnvironmentFlags', { value: new Set() });");
  const runs = jitless.length ? 'JavaScript' : 'WebAssembly';
  const warned = new RegExp(`NO_ADDON\\] Warning: ${NAME} runs on ${runs}[^]*To silence this: BUFFERUTIL_SIMD_LEVEL=wasm\\.\\n`);
  assert.match(node(bare, BACKEND, { args: [...jitless, ...noFlag] }).stderr, warned);
});

test("the loader's error ends with its `fix`: the platform package built for this platform and libc, or how a bundle ships it", () => {
  const caught = "catch (e) { process.stdout.write(e.message.endsWith('\\n  ' + e.fix) ? e.fix : e.message); }";
  const fixOf = (dir, script, args) => node(dir, `try { ${script}; } ${caught}`, { args }).stdout;
  const loadIn = (dir) => `require(${JSON.stringify(path.join(dir, 'lib', 'tiers', 'addon.js'))}).loadAddon()`;
  for (const [os, cpu, report, wanted] of [
    ['linux', 'x64', '{ header: { glibcVersionRuntime: "2.36" } }', 'linux-x64-gnu'],
    ['linux', 'arm64', '{ header: {} }', 'linux-arm64-musl'],
    // No process report (Deno): glibc's, the likelier.
    ['linux', 'x64', 'undefined', 'linux-x64-gnu'],
    ['win32', 'arm64', 'undefined', 'win32-arm64-msvc'],
    ['darwin', 'arm64', 'undefined', 'darwin-arm64'],
    ['aix', 'ppc64', 'undefined', null],
  ]) {
    const elsewhere = `Object.defineProperty(process, 'platform', { value: '${os}' });
      Object.defineProperty(process, 'arch', { value: '${cpu}' });
      process.report.getReport = () => (${report});`;
    const args = preload('elsewhere', elsewhere);
    const fix = wanted ? `^Install ${NAME}-${wanted}@${VERSION} where ` : `^${NAME} publishes no addon for ${os}-${cpu}\\.$`;
    assert.match(fixOf(bare, loadIn(path.join(bare, 'node_modules', NAME)), args), new RegExp(fix), `${os} ${cpu}`);
  }
  // The package's JavaScript without its package.json or node_modules, as a bundle holds it.
  const dist = path.join(work, 'bundle-alone', 'dist');
  fs.cpSync(path.join(bare, 'node_modules', NAME, 'lib'), path.join(dist, 'lib'), { recursive: true });
  assert.match(fixOf(dist, loadIn(dist)), new RegExp(`^Ship ${NAME}-\\S+@${VERSION} beside this bundle`));
  // As webpack's ES module output: no __filename, and a require that is webpack's own.
  const loader = JSON.stringify(path.join(dist, 'lib', 'tiers', 'addon.js'));
  const noRequire = `globalThis.__webpack_require__ = () => {};
    const src = require('node:fs').readFileSync(${loader}, 'utf8');
    const module = { exports: {} };
    new Function('require', 'module', '__filename', src)(require('node:module').createRequire(${loader}), module, '');
    module.exports.loadAddon()`;
  const giveRequire = new RegExp(`^Give this bundle a require\\(\\), or leave ${NAME} out of it \\(external\\)`);
  assert.match(fixOf(dist, noRequire), giveRequire);
});

test('no warning where addons are off by choice, where the platform has no prebuilt addon, or when silenced: NODE_DEBUG says why', () => {
  const aix = preload('aix', "Object.defineProperty(process, 'platform', { value: 'aix' });");
  const portable = `process.stdout.write(require('./node_modules/${NAME}/portable.js').backend)`;
  for (const [what, args, env, why, dir = bare, script = BACKEND] of [
    // Node's reason alone, even with the platform package there: no install would help.
    ['--no-addons', ['--no-addons'], {}, 'Cannot load native addon because loading addons is disabled[^\\n]*', matching ?? bare],
    ['BUFFERUTIL_SIMD_LEVEL=wasm', [], { BUFFERUTIL_SIMD_LEVEL: 'wasm' }, 'BUFFERUTIL_SIMD_LEVEL=wasm'],
    ['BUFFERUTIL_SIMD_LEVEL=js', [], { BUFFERUTIL_SIMD_LEVEL: 'js' }, 'BUFFERUTIL_SIMD_LEVEL=js'],
    ['--disable-warning', ['--disable-warning=BUFFERUTIL_SIMD_NO_ADDON'], {}, `No ${NAME} addon loads on [^]*`],
    ['no prebuilt addon', aix, {}, `No ${NAME} addon loads on aix-[^]*publishes no addon for aix-[^\\n]*`],
    ['portable.js', [], {}, 'this entry loads no addon \\(portable\\.js\\)', bare, portable],
  ].filter(([what]) => DISABLE || what !== '--disable-warning')) {
    const tier = env.BUFFERUTIL_SIMD_LEVEL === 'js' ? 'js' : 'wasm';
    const run = node(dir, script, { args, env });
    assert.deepEqual([run.status, run.stdout, run.stderr], [0, tier, ''], what);
    const told = node(dir, script, { args, env: { ...env, NODE_DEBUG: NAME } }).stderr;
    assert.match(told, new RegExp(`^BUFFERUTIL-SIMD \\d+: no addon: ${why}\\nBUFFERUTIL-SIMD \\d+: tier ${tier}$`, 'm'), what);
  }
});

test('BUFFERUTIL_SIMD_REQUIRE_NATIVE=1: the load throws with reason and fix where no addon loads, only there', { skip }, () => {
  const script = `let out;
    try { out = { backend: require(${JSON.stringify(NAME)}).backend }; } catch (e) { out = { code: e.code, message: e.message }; }
    process.stdout.write(JSON.stringify(out));`;
  const slower = 'WebAssembly, slower than bufferutil for large payloads';
  for (const [dir, args, env, reason] of [
    [bare, [], {}, `${slower}: No ${NAME} addon loads on [^]*\\n  ${esc(INSTALL)}`],
    [matching, ['--no-addons'], {}, `${slower}: Cannot load native addon because loading addons is disabled`],
    [matching, [], { BUFFERUTIL_SIMD_LEVEL: 'wasm' }, `${slower}: BUFFERUTIL_SIMD_LEVEL=wasm`],
  ]) {
    const run = node(dir, script, { args, env: { ...env, BUFFERUTIL_SIMD_REQUIRE_NATIVE: '1' } });
    const { code, message } = JSON.parse(run.stdout);
    assert.equal(code, 'BUFFERUTIL_SIMD_NO_ADDON');
    assert.match(message, new RegExp(`^BUFFERUTIL_SIMD_REQUIRE_NATIVE=1, but ${NAME} runs on ${reason}`));
    // A caller that catches the throw, as ws does, still leaves a warning of it: this one, not the lost addon's.
    assert.ok(run.stderr.includes(`[BUFFERUTIL_SIMD_REQUIRE_NATIVE] Warning: ${message}\n`), run.stderr);
    assert.doesNotMatch(run.stderr, NO_ADDON);
  }
  const loaded = node(matching, script, { env: { BUFFERUTIL_SIMD_REQUIRE_NATIVE: '1' } }).stdout;
  assert.ok(!['wasm', 'js', undefined].includes(JSON.parse(loaded).backend), loaded);
});

test('NODE_DEBUG=bufferutil-simd counts the calls and bytes that reach the package, at exit, and leaves the exports as they are', () => {
  const script = `const exported = require(${JSON.stringify(NAME)});
    const key = Buffer.from([1, 2, 3, 4]);
    exported.mask(Buffer.alloc(16), key, Buffer.alloc(20), 4, 16);
    exported.mask(Buffer.alloc(4096), key, Buffer.alloc(4096), 0, 4096);
    exported.unmask(new Uint32Array(300), key);
    try { exported.unmask('not a view', key); } catch {}
    const constructs = (f) => { try { return Reflect.construct(String, [], f) !== undefined; } catch { return false; } };
    const of = (v) => (typeof v === 'function' ? [v.name, v.length, constructs(v), Object.getOwnPropertyNames(v)] : typeof v);
    process.stdout.write(JSON.stringify({
      backend: exported.backend,
      listeners: ['exit', 'SIGINT', 'SIGTERM'].map((event) => process.listenerCount(event)).join(),
      shape: Object.entries(exported).map(([name, value]) => [name, of(value)]),
    }));`;
  const levels = [{ BUFFERUTIL_SIMD_LEVEL: 'wasm' }, { BUFFERUTIL_SIMD_LEVEL: 'js' }];
  for (const [dir, env] of [...levels.map((env) => [bare, env]), ...(matching ? [[matching, {}]] : [])]) {
    const off = JSON.parse(node(dir, script, { env }).stdout);
    const on = node(dir, script, { env: { ...env, NODE_DEBUG: NAME } });
    // The same keys in order, functions of the same name, length and kind.
    assert.deepEqual(JSON.parse(on.stdout).shape, off.shape);
    assert.equal(off.listeners, '0,0,0', 'NODE_DEBUG off: no counting');
    const counts = `tier ${off.backend} at exit: mask 2 calls, 4112 B; unmask 2 calls, 1200 B`;
    assert.match(on.stderr, new RegExp(`BUFFERUTIL-SIMD \\d+: ${counts}`), on.stderr);
  }
});

test('NODE_DEBUG=bufferutil-simd: a SIGINT or SIGTERM says the counts, and the process ends as it would without it', {
  skip: process.platform === 'win32' && 'no signal is raised again on Windows',
}, async () => {
  const calls = `const { mask } = require(${JSON.stringify(NAME)});
    mask(Buffer.alloc(64), Buffer.from([1, 2, 3, 4]), Buffer.alloc(64), 0, 64)`;
  const keeps = "let heard = 0; process.on('SIGINT', () => (++heard === 2 ? process.exit(3) : console.log('kept')))";
  // Raises it again once it is the only listener, as signal-exit does.
  const raises = `process.on('SIGTERM', function alone() {
    if (process.listenerCount('SIGTERM') > 1) return;
    process.removeListener('SIGTERM', alone);
    process.kill(process.pid, 'SIGTERM');
  })`;
  const options = { cwd: bare, env: { NODE_DEBUG: NAME, BUFFERUTIL_SIMD_LEVEL: 'wasm' }, clean: true, timeout: 30_000 };
  for (const [what, app, signals, ending] of [
    ['no listener', '', ['SIGINT'], { code: null, signal: 'SIGINT' }],
    ['no listener', '', ['SIGTERM'], { code: null, signal: 'SIGTERM' }],
    ["the app's listener keeps it running, then exits with 3", keeps, ['SIGINT', 'SIGINT'], { code: 3, signal: null }],
    ['a listener that raises it again once it is the only one', raises, ['SIGTERM'], { code: null, signal: 'SIGTERM' }],
  ]) {
    // Sent the next signal at each line it prints; SIGKILL, a failure, if it outlives them.
    const sent = [...signals];
    const script = `${calls}; ${app}; console.log('ready'); setInterval(() => {}, 1000);`;
    const run = await spawnLines(['-e', script], { ...options, onLine: (line, child) => child.kill(sent.shift()) });
    assert.deepEqual({ code: run.code, signal: run.signal }, ending, `${what}: ${run.stderr}`);
    assert.match(run.stderr, new RegExp(`tier wasm at ${signals[0]}: mask 1 calls, 64 B;`), what);
  }
});

test("the platform package of this version, or a clone's build beside its manifest at this version, loads", { skip }, () => {
  // Without a word; NODE_DEBUG=bufferutil-simd says which tier loaded and why, once.
  for (const env of [{}, { NODE_DEBUG: '' }]) assert.equal(node(matching, BACKEND, { env }).stderr, '');
  const { backend, stderr } = probe(matching);
  assert.ok(!['wasm', 'js'].includes(backend), stderr);
  const debug = `^BUFFERUTIL-SIMD \\d+: tier ${backend}: addon [^\\n]*${NAME}-${platform}[^\\n]*\\n`;
  assert.match(stderr, new RegExp(`${debug}BUFFERUTIL-SIMD \\d+: tier ${backend} at exit: mask 0 calls[^\\n]*\\n$`));

  const cloned = probe(app('clone', { build: true }));
  assert.ok(!['wasm', 'js'].includes(cloned.backend), cloned.stderr);
  // As beside a bundle: the folder above is someone else's (required by path, as its manifest names another package).
  const elsewhere = probe(app('clone-elsewhere', { build: true, name: 'someone-else' }), `./node_modules/${NAME}`);
  assert.equal(elsewhere.backend, 'wasm');
  assert.match(elsewhere.error, new RegExp(`not beside ${NAME}@${VERSION}'s package.json \\(found someone-else@`));
});

test("the addon built here reports lib/version.js's interface and lib/level.js's levels", { skip }, () => {
  const built = require(path.join(root, addon));
  assert.equal(built.interface, require('../lib/version').addonInterface, 'this build: run `node scripts/version.js`');
  const union = /export type Backend = ([^\n]+)/.exec(read('index.d.ts'))[1].replace(/['\s]/g, '').split('|');
  const { NAMES } = require('../lib/level');
  assert.deepEqual(new Set(union), new Set(NAMES));
  // lib/level.js's list, which BUFFERUTIL_SIMD_LEVEL's warning reads, is the addon's, then the JavaScript tiers.
  assert.deepEqual([...built.levels.split(','), 'wasm', 'js'], NAMES);
});
