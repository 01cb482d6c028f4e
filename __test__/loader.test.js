'use strict';

// lib/tiers/addon.js's lookup, in installed layouts made in a temporary folder: which addon loads, and what a
// lost one says. (The same rules inside bundles: __test__/integration/bundlers.js.)

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { createInterface } = require('node:readline');

const root = path.join(__dirname, '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const NAME = manifest.name;
const addon = fs.readdirSync(root).find((file) => file.startsWith(`${NAME}.`) && file.endsWith('.node'));
const platform = addon?.slice(NAME.length + 1, -'.node'.length);
const SHIPPED = ['index.js', 'portable.js', 'lib'];
const OTHER = '4.0.0-other';
const NO_ADDON = /\[BUFFERUTIL_SIMD_NO_ADDON\] Warning: /g;
// The platform packages: an installed copy's manifest names them; a clone has their folders under npm/.
const PLATFORMS = Object.keys(manifest.optionalDependencies ?? {}).concat(
  fs.existsSync(path.join(root, 'npm')) ? fs.readdirSync(path.join(root, 'npm')).map((dir) => `${NAME}-${dir}`) : []
);

let work;
/** An app without a platform package, and one with it at this version (where an addon is built). */
let bare;
let matching;

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'bufferutil-simd-loader-'));
  bare = app('bare').dir;
  if (addon) matching = app('matching', { version: manifest.version }).dir;
});

after(() => {
  if (work && !process.env.KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

/** An app folder with this package installed, and its platform package at `version` (none: undefined). */
function app(name, { version, addonBytes, main } = {}) {
  const dir = path.join(work, name);
  const pkg = path.join(dir, 'node_modules', NAME);
  fs.mkdirSync(pkg, { recursive: true });
  for (const entry of SHIPPED) fs.cpSync(path.join(root, entry), path.join(pkg, entry), { recursive: true });
  fs.copyFileSync(path.join(root, 'package.json'), path.join(pkg, 'package.json'));
  if (version !== undefined) {
    const platformDir = path.join(dir, 'node_modules', `${NAME}-${platform}`);
    fs.mkdirSync(platformDir);
    const platformManifest = JSON.parse(fs.readFileSync(path.join(root, 'npm', platform, 'package.json'), 'utf8'));
    main ??= platformManifest.main;
    fs.writeFileSync(path.join(platformDir, 'package.json'), JSON.stringify({ ...platformManifest, version, main }));
    if (addonBytes) fs.writeFileSync(path.join(platformDir, main), addonBytes);
    else fs.copyFileSync(path.join(root, addon), path.join(platformDir, main));
  }
  return { dir, pkg };
}

/** This environment with `env` added, and BUFFERUTIL_SIMD_*, NODE_DEBUG and NODE_OPTIONS from here removed. */
function childEnv(env) {
  const clean = Object.entries(process.env).filter(([name]) => !/^(BUFFERUTIL_SIMD_|NODE_OPTIONS$|NODE_DEBUG$)/.test(name));
  return { ...Object.fromEntries(clean), ...env };
}

/** `node [args] -e script` in `dir` with `env` added. */
function node(dir, script, { args = [], env = {} } = {}) {
  return spawnSync(process.execPath, [...args, '-e', script], { cwd: dir, env: childEnv(env), encoding: 'utf8' });
}

/** `script` in a child under NODE_DEBUG=bufferutil-simd that then waits, sent the next of `signals` at each line it prints:
 * how it ended, and its stderr. */
function signalled(script, signals) {
  const waits = `${script}; console.log('ready'); setInterval(() => {}, 1000);`;
  const env = childEnv({ NODE_DEBUG: NAME, BUFFERUTIL_SIMD_LEVEL: 'wasm' });
  const child = spawn(process.execPath, ['-e', waits], { cwd: bare, env, timeout: 30_000, killSignal: 'SIGKILL' });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  createInterface({ input: child.stdout }).on('line', () => child.kill(signals.shift()));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
}

const BACKEND = `process.stdout.write(require(${JSON.stringify(NAME)}).backend)`;

/**
 * Loads the package in `dir` in a child, then lib/tiers/native.js by itself in another (a module that threw is
 * loaded afresh each time, so one load each keeps the warnings countable): the backend, the package's stderr,
 * and lib/tiers/native.js's error message (or null) and `fix`.
 */
function probe(dir, id = NAME) {
  const loaded = node(dir, `process.stdout.write(require(${JSON.stringify(id)}).backend)`);
  assert.equal(loaded.status, 0, loaded.stderr);
  const native = path.join(dir, 'node_modules', NAME, 'lib/tiers/native.js');
  const alone = node(
    dir,
    `try { require(${JSON.stringify(native)}); } catch (e) { process.stdout.write(JSON.stringify(e, ['message', 'fix'])); }`
  );
  assert.equal(alone.status, 0, alone.stderr);
  const { message = null, fix } = JSON.parse(alone.stdout || '{}');
  return { backend: loaded.stdout, stderr: loaded.stderr, error: message, fix };
}

/** The package loaded in a child with NODE_DEBUG=bufferutil-simd: its backend, stderr and stderr's lines. */
function debug(dir, args = []) {
  const run = node(dir, BACKEND, { args, env: { NODE_DEBUG: NAME } });
  assert.equal(run.status, 0, run.stderr);
  return { backend: run.stdout, stderr: run.stderr, lines: run.stderr.trim().split('\n') };
}

test("lib/version.js, Cargo.toml, Cargo.lock and the docs' install lines hold package.json's version", () => {
  assert.equal(require('../lib/version').version, manifest.version, 'run `node scripts/version.js`');
  // In a clone: the installed package has no Cargo files.
  if (!fs.existsSync(path.join(root, 'Cargo.lock'))) return;
  for (const file of ['Cargo.toml', 'Cargo.lock']) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    assert.match(
      text,
      new RegExp(`name = "bufferutil-simd"\nversion = "${manifest.version}"`),
      `${file}: run \`node scripts/version.js\``
    );
  }
  // The install lines and purls of README.md and docs/, which the same script rewrites.
  const docs = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).map((name) => `docs/${name}`)];
  const named = docs.flatMap((file) =>
    [...fs.readFileSync(path.join(root, file), 'utf8').matchAll(/bufferutil-simd@\^?(\d+\.\d+\.\d+)/g)].map((m) => [file, ...m])
  );
  assert.ok(named.length > 0, 'no bufferutil-simd@X.Y.Z in the docs');
  for (const [file, text, version] of named) assert.equal(version, manifest.version, `${file}: ${text}`);
});

test('this build reports the interface lib/version.js expects; one from other sources is not used: WebAssembly, and a warning', {
  skip: !addon && 'no addon built',
}, () => {
  assert.equal(
    require(path.join(root, addon)).interface,
    require('../lib/version').addonInterface,
    'this build: run `node scripts/version.js`'
  );
  // A platform package that says this version but holds a build with other exports (as an earlier build of
  // the same version would): `require` must not throw, and the package must not call into it.
  for (const [name, exported] of [
    ['stale-no-interface', '{ bind: () => ({ mask() {}, unmask() {}, backend: "avx2" }) }'],
    ['stale-interface-1', '{ interface: 1, bind: () => { throw new Error("called into a stale addon"); } }'],
  ]) {
    const { dir } = app(name, { version: manifest.version, main: 'stale.js', addonBytes: `module.exports = ${exported};` });
    const result = probe(dir);
    assert.equal(result.backend, 'wasm', name);
    assert.match(result.error, /addon interface (undefined|1), not \d+ \(built from other sources\): not used/, name);
    assert.equal(result.stderr.match(NO_ADDON)?.length, 1, result.stderr);
    assert.match(result.stderr, /addon interface/, name);
  }
});

test('a platform package of another version is not opened: WebAssembly, and a warning that says why', {
  skip: !addon && 'no addon built',
}, () => {
  // Not an addon at all: opening it would fail with another message than the version's.
  const { dir } = app('other-version', { version: OTHER, addonBytes: 'not an addon' });
  const result = probe(dir);
  assert.equal(result.backend, 'wasm');
  assert.match(result.error, new RegExp(`^No ${NAME} addon loads on `));
  assert.match(result.error, new RegExp(`${NAME}-${platform}: version ${OTHER}, not ${manifest.version}: not loaded`));
  assert.doesNotMatch(result.error, /invalid ELF|not a valid|file too short|slice is not valid/i, 'the addon was opened');
  assert.equal(result.stderr.match(NO_ADDON)?.length, 1, result.stderr);
  const passedOver = new RegExp(`${NAME}-${platform}: version ${OTHER}, not [^:]+: not loaded \\(([^)]+)\\)`).exec(result.stderr);
  assert.ok(passedOver, result.stderr);
  assert.equal(fs.realpathSync(passedOver[1]), fs.realpathSync(path.join(dir, 'node_modules', `${NAME}-${platform}`)));
  assert.ok(result.stderr.includes(`Install ${NAME}-${platform}@${manifest.version} where this code runs`), result.stderr);
});

test('an addon cut short is not opened (dlopen would die of SIGBUS): WebAssembly, and a warning to reinstall it', {
  skip: !platform?.startsWith('linux') && 'an ELF addon',
}, () => {
  const whole = fs.readFileSync(path.join(root, addon));
  // As `sstrip` leaves a library: no section headers, so only the PT_LOAD segments tell.
  const stripped = Buffer.from(whole).fill(0, 40, 48).fill(0, 60, 62);
  // ELFCLASS32, big-endian: one PT_LOAD of 8192 B in a file of 128.
  const elf32 = Buffer.alloc(128);
  elf32.set([0x7f, 0x45, 0x4c, 0x46, 1, 2]);
  elf32.writeUInt32BE(52, 28);
  elf32.writeUInt16BE(32, 42);
  elf32.writeUInt16BE(1, 44);
  elf32.writeUInt32BE(1, 52);
  elf32.writeUInt32BE(8192, 68);
  const half = (bytes) => bytes.subarray(0, bytes.length >> 1);
  for (const [name, addonBytes] of [
    ['cut', half(whole)],
    ['cut-stripped', half(stripped)],
    ['cut-elf32', elf32],
  ]) {
    const { dir } = app(name, { version: manifest.version, addonBytes });
    const run = node(dir, BACKEND);
    assert.deepEqual([run.signal, run.stdout], [null, 'wasm'], `${name}: ${run.stderr}`);
    assert.equal(run.stderr.match(NO_ADDON)?.length, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`${NAME}-${platform}: \\d+ B, but its ELF headers say \\d+: cut short`), name);
    assert.ok(run.stderr.includes(`${NAME}-${platform} is there but does not load (damaged, cut short`), run.stderr);
  }
});

test('no platform package where this platform has one: one warning with its code, what runs and what to install', {
  skip: !addon && 'no addon built',
}, () => {
  const result = probe(bare);
  assert.equal(result.backend, 'wasm');
  assert.match(result.error, new RegExp(`^No ${NAME} addon loads on `));
  assert.equal(result.stderr.match(NO_ADDON)?.length, 1, result.stderr);
  assert.match(result.stderr, /runs on WebAssembly, slower than bufferutil for large payloads/);
  assert.ok(result.stderr.includes(`Install ${NAME}-${platform}@${manifest.version} where this code runs`), result.stderr);
  assert.match(result.stderr, /as an optional dependency/);
  assert.ok(result.error.endsWith(`\n  ${result.fix}`), 'the last line of the message is its `fix`');
  // Without WebAssembly SIMD too (Node's --jitless; Bun has none): it says JavaScript runs.
  if (process.versions.bun) return;
  const jitless = node(bare, BACKEND, { args: ['--jitless'] });
  assert.equal(jitless.stdout, 'js');
  assert.match(jitless.stderr, /\[BUFFERUTIL_SIMD_NO_ADDON\] Warning: bufferutil-simd runs on JavaScript/);
});

test("the loader's error's `fix` names the platform package the release builds for this platform and libc", () => {
  const loader = path.join(bare, 'node_modules', NAME, 'lib', 'tiers', 'addon.js');
  for (const [os, cpu, report, wanted] of [
    ['linux', 'x64', '{ header: { glibcVersionRuntime: "2.36" } }', 'linux-x64-gnu'],
    ['linux', 'arm64', '{ header: {} }', 'linux-arm64-musl'],
    // No process report (Deno): glibc's, the likelier.
    ['linux', 'x64', 'undefined', 'linux-x64-gnu'],
    ['win32', 'arm64', 'undefined', 'win32-arm64-msvc'],
    ['darwin', 'arm64', 'undefined', 'darwin-arm64'],
    ['aix', 'ppc64', 'undefined', null],
  ]) {
    const preload = path.join(bare, `${os}-${cpu}.js`);
    fs.writeFileSync(
      preload,
      `Object.defineProperty(process, 'platform', { value: '${os}' });
      Object.defineProperty(process, 'arch', { value: '${cpu}' });
      process.report.getReport = () => (${report});`
    );
    const run = node(bare, `try { require(${JSON.stringify(loader)}).loadAddon(); } catch (e) { console.log(e.fix); }`, {
      args: ['--require', preload],
    });
    if (!wanted) assert.equal(run.stdout, `${NAME} publishes no addon for ${os}-${cpu}.\n`);
    else assert.ok(run.stdout.startsWith(`Install ${NAME}-${wanted}@${manifest.version} where`), `${os} ${cpu}: ${run.stdout}`);
    assert.ok(!wanted || PLATFORMS.includes(`${NAME}-${wanted}`), wanted);
  }
});

test("a bundle with no platform package above it, or no require(), is told how to ship the addon (the loader's `fix`)", () => {
  // The package's JavaScript without its package.json or node_modules, as a bundle holds it.
  const dist = path.join(work, 'bundle-alone', 'dist');
  fs.cpSync(path.join(bare, 'node_modules', NAME, 'lib'), path.join(dist, 'lib'), { recursive: true });
  const loader = JSON.stringify(path.join(dist, 'lib', 'tiers', 'addon.js'));
  const fixOf = (script) => node(dist, `try { ${script}; } catch (e) { process.stdout.write(e.fix); }`).stdout;
  assert.match(fixOf(`require(${loader}).loadAddon()`), new RegExp(`^Ship ${NAME}-\\S+@${manifest.version} beside this bundle`));
  // As webpack's ES module output: no __filename, and a require that is webpack's own.
  const noRequire = `globalThis.__webpack_require__ = () => {};
    const src = require('node:fs').readFileSync(${loader}, 'utf8');
    const module = { exports: {} };
    new Function('require', 'module', '__filename', src)(require('node:module').createRequire(${loader}), module, '');
    module.exports.loadAddon()`;
  assert.match(fixOf(noRequire), new RegExp(`^Give this bundle a require\\(\\), or leave ${NAME} out of it \\(external\\)`));
});

test('no warning where addons are off by choice, where the platform has no prebuilt addon, or when silenced', () => {
  // Where this platform has no prebuilt addon, only NODE_DEBUG tells.
  const elsewhere = ['--require', path.join(bare, 'elsewhere.js')];
  fs.writeFileSync(elsewhere[1], "Object.defineProperty(process, 'platform', { value: 'aix' });");
  for (const [what, args, env] of [
    ['--no-addons', ['--no-addons'], {}],
    ['BUFFERUTIL_SIMD_LEVEL=wasm', [], { BUFFERUTIL_SIMD_LEVEL: 'wasm' }],
    ['BUFFERUTIL_SIMD_LEVEL=js', [], { BUFFERUTIL_SIMD_LEVEL: 'js' }],
    ['--disable-warning', ['--disable-warning=BUFFERUTIL_SIMD_NO_ADDON'], {}],
    ['no prebuilt addon', elsewhere, {}],
  ].filter(([what]) => what !== '--disable-warning' || process.allowedNodeEnvironmentFlags.has(what))) {
    const run = node(bare, BACKEND, { args, env });
    assert.equal(run.status, 0, `${what}: ${run.stderr}`);
    assert.ok(['wasm', 'js'].includes(run.stdout), what);
    assert.equal(run.stderr, '', what);
  }
  const portable = node(bare, `require('./node_modules/${NAME}/portable.js')`);
  assert.equal(portable.stderr, '');
  const told = node(bare, BACKEND, { args: elsewhere, env: { NODE_DEBUG: NAME } });
  assert.match(told.stderr, /no addon: No bufferutil-simd addon loads on aix-[\s\S]*publishes no addon for aix-/);
});

test("the warning offers --disable-warning only where the runtime takes it (not Node 18's)", {
  skip: !addon && 'no addon built',
}, () => {
  const without = path.join(bare, 'no-disable-warning.js');
  fs.writeFileSync(without, "Object.defineProperty(process, 'allowedNodeEnvironmentFlags', { value: new Set() });");
  assert.match(node(bare, BACKEND, { args: ['--require', without] }).stderr, /To silence this: BUFFERUTIL_SIMD_LEVEL=wasm\.\n/);
  const takes = process.allowedNodeEnvironmentFlags.has('--disable-warning');
  assert.equal(node(bare, BACKEND).stderr.includes(', or --disable-warning=BUFFERUTIL_SIMD_NO_ADDON.'), takes);
});

test('BUFFERUTIL_SIMD_REQUIRE_NATIVE=1: the load throws with the reason and the fix where no addon loads, and only there', {
  skip: !addon && 'no addon built',
}, () => {
  const env = { BUFFERUTIL_SIMD_REQUIRE_NATIVE: '1' };
  const lost = node(bare, BACKEND, { env });
  assert.notEqual(lost.status, 0);
  assert.match(
    lost.stderr,
    /BUFFERUTIL_SIMD_REQUIRE_NATIVE=1, but bufferutil-simd runs on WebAssembly, slower than bufferutil for large payloads: No bufferutil-simd addon loads on /
  );
  assert.ok(lost.stderr.includes(`Install ${NAME}-${platform}@${manifest.version} where this code runs`), lost.stderr);
  assert.match(lost.stderr, /code: ["']BUFFERUTIL_SIMD_NO_ADDON["']/);
  assert.doesNotMatch(lost.stderr, NO_ADDON, 'an error instead of the warning');
  // A caller that catches the throw, as ws does, still leaves a warning with the reason and the fix.
  const caught = node(bare, `try { require(${JSON.stringify(NAME)}); } catch {}`, { env });
  assert.match(
    caught.stderr,
    new RegExp(`\\[BUFFERUTIL_SIMD_REQUIRE_NATIVE\\] Warning: BUFFERUTIL_SIMD_REQUIRE_NATIVE=1, but [^]*\n  Install ${NAME}-`)
  );

  for (const [args, extra, reason] of [
    [['--no-addons'], {}, /large payloads: Cannot load native addon because loading addons is disabled/],
    [[], { BUFFERUTIL_SIMD_LEVEL: 'wasm' }, /large payloads: BUFFERUTIL_SIMD_LEVEL=wasm/],
  ]) {
    const run = node(matching, BACKEND, { args, env: { ...env, ...extra } });
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, reason);
  }
  const loaded = node(matching, BACKEND, { env });
  assert.equal(loaded.status, 0, loaded.stderr);
  assert.ok(!['wasm', 'js'].includes(loaded.stdout), loaded.stdout);
});

test('NODE_DEBUG=bufferutil-simd counts the calls and bytes that reach the package, at exit; off, nothing wraps it', () => {
  const calls = `
    const { mask, unmask } = require(${JSON.stringify(NAME)});
    const key = Buffer.from([1, 2, 3, 4]);
    mask(Buffer.alloc(16), key, Buffer.alloc(20), 4, 16);
    mask(Buffer.alloc(4096), key, Buffer.alloc(4096), 0, 4096);
    unmask(new Uint32Array(300), key);
    try { unmask('not a view', key); } catch {}`;
  const exit = /BUFFERUTIL-SIMD \d+: tier (\w+) at exit: (.*)/;
  const counted = node(bare, calls, { env: { NODE_DEBUG: NAME, BUFFERUTIL_SIMD_LEVEL: 'wasm' } });
  assert.deepEqual(exit.exec(counted.stderr)?.slice(1), ['wasm', 'mask 2 calls, 4112 B; unmask 2 calls, 1200 B'], counted.stderr);
  const none = node(bare, BACKEND, { env: { NODE_DEBUG: NAME, BUFFERUTIL_SIMD_LEVEL: 'js' } });
  assert.equal(exit.exec(none.stderr)?.[2], 'mask 0 calls, 0 B; unmask 0 calls, 0 B', none.stderr);
  const listeners = "['exit', 'SIGINT', 'SIGTERM'].map((event) => process.listenerCount(event)).join()";
  const off = node(bare, `require(${JSON.stringify(NAME)}); process.stdout.write(${listeners})`);
  assert.equal(off.stdout, '0,0,0', 'NODE_DEBUG off: no counting');
});

test('NODE_DEBUG=bufferutil-simd leaves the exports as they are: the same keys in order, functions of the same name, length and kind', () => {
  const shape = `const exported = require(${JSON.stringify(NAME)});
    const constructs = (f) => { try { return Reflect.construct(String, [], f) !== undefined; } catch { return false; } };
    const of = (v) => (typeof v === 'function' ? [v.name, v.length, constructs(v), Object.getOwnPropertyNames(v)] : typeof v);
    process.stdout.write(JSON.stringify(Object.entries(exported).map(([name, value]) => [name, of(value)])));`;
  for (const dir of matching ? [bare, matching] : [bare]) {
    const plain = node(dir, shape).stdout;
    assert.equal(node(dir, shape, { env: { NODE_DEBUG: NAME } }).stdout, plain, plain);
  }
});

test('NODE_DEBUG=bufferutil-simd: a SIGINT or SIGTERM says the counts, and the process ends as it would without it', {
  skip: process.platform === 'win32' && 'no signal is raised again on Windows',
}, async () => {
  const calls = `const { mask } = require(${JSON.stringify(NAME)});
    mask(Buffer.alloc(64), Buffer.from([1, 2, 3, 4]), Buffer.alloc(64), 0, 64)`;
  for (const [what, app, signals, ending] of [
    ['no listener', '', ['SIGINT'], { code: null, signal: 'SIGINT' }],
    ['no listener', '', ['SIGTERM'], { code: null, signal: 'SIGTERM' }],
    [
      "the app's listener keeps it running, then exits with 3",
      "let heard = 0; process.on('SIGINT', () => (++heard === 2 ? process.exit(3) : console.log('kept')))",
      ['SIGINT', 'SIGINT'],
      { code: 3, signal: null },
    ],
    [
      'a listener that raises it again once it is the only one (as signal-exit does)',
      `process.on('SIGTERM', function alone() {
        if (process.listenerCount('SIGTERM') > 1) return;
        process.removeListener('SIGTERM', alone);
        process.kill(process.pid, 'SIGTERM');
      })`,
      ['SIGTERM'],
      { code: null, signal: 'SIGTERM' },
    ],
  ]) {
    const run = await signalled(`${calls}; ${app}`, [...signals]);
    assert.deepEqual({ code: run.code, signal: run.signal }, ending, `${what}: ${run.stderr}`);
    assert.match(run.stderr, new RegExp(`tier wasm at ${signals[0]}: mask 1 calls, 64 B;`), what);
  }
});

test("a clone's own build loads only beside this package's manifest at this version", {
  skip: !addon && 'no addon built',
}, () => {
  const { dir, pkg } = app('clone');
  fs.copyFileSync(path.join(root, addon), path.join(pkg, addon));
  const result = probe(dir);
  assert.ok(!['wasm', 'js'].includes(result.backend), `backend ${result.backend}: ${result.error}`);

  // As beside a bundle: the folder above is someone else's.
  const other = app('clone-elsewhere');
  fs.copyFileSync(path.join(root, addon), path.join(other.pkg, addon));
  fs.writeFileSync(path.join(other.pkg, 'package.json'), JSON.stringify({ ...manifest, name: 'someone-else' }));
  // Required by path, since the manifest no longer names this package.
  const elsewhere = probe(other.dir, `./node_modules/${NAME}`);
  assert.equal(elsewhere.backend, 'wasm');
  assert.match(elsewhere.error, new RegExp(`not beside ${NAME}@${manifest.version}'s package.json \\(found someone-else@`));
});

test('the platform package at this version loads without a word; NODE_DEBUG=bufferutil-simd says which tier loaded and why, once', {
  skip: !addon && 'no addon built',
}, () => {
  const result = probe(matching);
  assert.ok(!['wasm', 'js'].includes(result.backend), `backend ${result.backend}: ${result.error}`);
  assert.equal(result.error, null);
  assert.equal(result.stderr, '');
  assert.equal(node(matching, BACKEND, { env: { NODE_DEBUG: '' } }).stderr, '');

  const loaded = debug(matching);
  assert.equal(loaded.lines.length, 2, loaded.stderr);
  assert.match(loaded.lines[0], new RegExp(`^BUFFERUTIL-SIMD \\d+: tier ${loaded.backend}: addon .*${NAME}-${platform}`));
  assert.match(loaded.lines[1], new RegExp(`^BUFFERUTIL-SIMD \\d+: tier ${loaded.backend} at exit: mask 0 calls`));

  // No platform package: it names only what can exist here, and ends with what to install.
  const none = debug(bare);
  assert.equal(none.backend, 'wasm');
  assert.match(none.stderr, new RegExp(`BUFFERUTIL-SIMD \\d+: no addon: No ${NAME} addon loads on `));
  assert.match(none.stderr, new RegExp(`${NAME}-${platform}: Cannot find module`));
  assert.doesNotMatch(none.stderr, /\.\.\/bufferutil-simd\..*\.node/, 'no clone build outside a clone');
  if (platform.endsWith('-gnu')) assert.doesNotMatch(none.stderr, /-musl/, 'no musl build beside glibc');
  const fix = none.lines.findIndex((line) =>
    line.includes(`Install ${NAME}-${platform}@${manifest.version} where this code runs`)
  );
  assert.ok(fix > 0, none.stderr);
  assert.match(none.lines[fix + 1] ?? '', /BUFFERUTIL-SIMD \d+: tier wasm$/, 'the fix is the last word before the tier');

  const noAddons = debug(matching, ['--no-addons']);
  assert.equal(noAddons.backend, 'wasm');
  // Node's reason alone: no install would help.
  assert.match(noAddons.stderr, /BUFFERUTIL-SIMD \d+: no addon: Cannot load native addon because loading addons is disabled/);
  assert.doesNotMatch(noAddons.stderr, /Install /);
});

test('index.d.ts and lib/level.js name exactly the levels the addon and the JavaScript tiers report', {
  skip: !addon && 'no addon built',
}, () => {
  const types = fs.readFileSync(path.join(root, 'index.d.ts'), 'utf8');
  const union = /export type Backend = ([^\n]+)/.exec(types)[1].replace(/['\s]/g, '').split('|');
  const { NAMES } = require('../lib/level');
  assert.deepEqual(new Set(union), new Set(NAMES));
  // lib/level.js's list, which BUFFERUTIL_SIMD_LEVEL's warning reads, is the addon's, then the JavaScript tiers.
  assert.deepEqual([...require(path.join(root, addon)).levels.split(','), 'wasm', 'js'], NAMES);
});

test('the loader looks for every platform package napi.targets builds, under the name the build gives it', {
  skip: !addon && 'no addon built',
}, () => {
  const { platformOf } = require('../scripts/targets');
  const { platformNames } = require('../lib/tiers/addon');
  for (const triple of manifest.napi.targets) {
    const name = platformOf(triple);
    const [os, cpu] = name.split('-');
    assert.ok(
      platformNames(os, cpu).includes(name),
      `${triple} builds ${name}, which the loader never looks for on ${os}-${cpu}`
    );
  }
});
