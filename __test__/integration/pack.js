'use strict';

// Packaging: what `npm pack` ships, the per-platform packages, and what a user gets from an install, scripts on or off:
// no tarball carries an install-time script, so no install needs Rust or a build step, or warns of one.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { pathToFileURL } = require('node:url');
const { execFileSync, spawn, spawnSync } = require('node:child_process');
const { root, rootManifest, userProject, run, npmInstall, installScripts, CLONE_SCRIPTS } = require('../../scripts/lib/packages');
const { targets } = require('../../scripts/targets');
const { serveRelease } = require('./mixed-app');

const NAME = rootManifest.name;
// What npm always adds, the entry points, the `npx bufferutil-simd` command, and lib/ (the manifest's `files` names it).
const ENTRIES =
  'README.md LICENSE package.json bin/bufferutil-simd.js index.js index.mjs index.d.ts index.d.mts portable.js portable.mjs';
const LIB = fs.readdirSync(path.join(root, 'lib'), { recursive: true }).filter((file) => file.endsWith('.js'));
const SHIPPED = [...ENTRIES.split(' '), ...LIB.map((file) => `lib/${file.replaceAll(path.sep, '/')}`)].sort();
const WORKFLOW = fs.readFileSync(path.join(root, '.github', 'workflows', 'release.yml'), 'utf8');

// Masks 200 random bytes in place and at offset 6 of another buffer, then unmasks, against the tests' reference loop.
const REFERENCE = path.join(__dirname, '..', 'helpers', 'reference.js');
const PROBE_BODY = `
const source = new Uint8Array(200).map(() => Math.floor(Math.random() * 256));
const key = [0x12, 0x34, 0x56, 0x78];
const expected = new Uint8Array(200);
reference.mask(source, key, expected, 0, 200);
const framed = new Uint8Array(206);
bufferUtil.mask(source, new Uint8Array(key), framed, 6, 200);
const inPlace = source.slice();
bufferUtil.unmask(inPlace, key);
const correct = framed.subarray(6).every((byte, i) => byte === expected[i]) && inPlace.every((byte, i) => byte === expected[i]);
`;
const PROBE_CJS = `const bufferUtil = require('${NAME}');
const reference = require(${JSON.stringify(REFERENCE)});${PROBE_BODY}
console.log(JSON.stringify({ backend: bufferUtil.backend, correct, entry: require.resolve('${NAME}') }));`;
const PROBE_ESM = `import bufferUtil, { mask, unmask, backend } from '${NAME}';
import reference from ${JSON.stringify(pathToFileURL(REFERENCE).href)};${PROBE_BODY}
const named = mask === bufferUtil.mask && unmask === bufferUtil.unmask && backend === bufferUtil.backend;
const entry = import.meta.resolve ? import.meta.resolve('${NAME}') : 'unknown';
console.log(JSON.stringify({ backend, correct, named, entry }));`;

let [work, release, registry] = [];
serveRelease('bufferutil-simd-pack-', (served) => ({ work, release, registry } = served));

const manifestOf = (tarball) => JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));

/** What probe `file` prints, run in `project` with `nodeArgs`: right bytes, and from ESM the same named and default exports. */
async function probe(project, file, nodeArgs = []) {
  const found = JSON.parse((await run(process.execPath, [...nodeArgs, file], { cwd: project })).stdout);
  assert.ok(found.correct, `${nodeArgs} ${file}: wrong bytes`);
  assert.notEqual(found.named, false, `${nodeArgs} ${file}: the named and default exports differ`);
  return found;
}

async function installed(name, args) {
  const project = userProject(work, name);
  await npmInstall(project, registry.url, ['--ignore-scripts', ...args, NAME]);
  fs.writeFileSync(path.join(project, 'probe.cjs'), PROBE_CJS);
  fs.writeFileSync(path.join(project, 'probe.mjs'), PROBE_ESM);
  return project;
}

test('npm pack ships only what users need', () => {
  const npm = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
  const [{ files }] = JSON.parse(npm);
  assert.deepEqual(files.map((file) => file.path).sort(), SHIPPED);
});

test("the README the registry shows links only what it can reach: anchors, or the repository's files by full address", () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const repository = rootManifest.homepage.replace(/#.*$/, '');
  const raw = repository.replace('https://github.com/', 'https://raw.githubusercontent.com/');
  for (const [link, target] of readme.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
    const prefix = [`${repository}/blob/main/`, `${raw}/main/`].find((start) => target.startsWith(start));
    const file = prefix && target.slice(prefix.length).replace(/#.*$/, '');
    if (file) assert.ok(fs.existsSync(path.join(root, file)), `${link}: no ${file} in the repository`);
    else assert.match(target, /^(#|https:\/\/)/, link);
  }
});

test('one platform package per napi target, versioned with the root; the release workflow and the root package agree on the targets', () => {
  // targets() throws where scripts/targets.js and napi.targets disagree; release.yml reads its matrices from it.
  const all = targets();
  const platforms = all.map(({ platform }) => platform);
  assert.deepEqual(fs.readdirSync(path.join(root, 'npm')).sort(), [...platforms].sort(), 'npm/ holds one folder per target');
  for (const platform of platforms) {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'npm', platform, 'package.json'), 'utf8'));
    const { name, version, main, os, cpu } = manifest;
    const binary = `${rootManifest.napi.binaryName}.${platform}.node`;
    assert.deepEqual({ name, version, main }, { name: `${NAME}-${platform}`, version: rootManifest.version, main: binary });
    assert.ok(os?.length && cpu?.length, `${name} declares os and cpu`);
    assert.deepEqual(installScripts(manifest), [], `${name} has install-time scripts`);
  }
  assert.match(WORKFLOW, /node scripts\/targets\.js build-matrix/);
  assert.match(WORKFLOW, /matrix: \$\{\{ fromJSON\(needs\.targets\.outputs\.build\) \}\}/);
  // Nothing the release builds or tests with is picked by a name that can move: images by digest, no system package.
  for (const { image } of all.filter((target) => target.image)) assert.match(image, /@sha256:[0-9a-f]{64}$/, image);
  assert.doesNotMatch(WORKFLOW, /apt-get install/);
  const manifest = manifestOf(release.main);
  const pinned = Object.fromEntries(platforms.map((platform) => [`${NAME}-${platform}`, rootManifest.version]));
  assert.deepEqual(manifest.optionalDependencies, pinned, 'one platform package pinned per target, at the root version');
  assert.deepEqual(manifest.napi.targets, rootManifest.napi.targets);
});

test('pack-platforms.js: --help prints its usage; a bad option or an unknown target is one line and exit 2', () => {
  const script = path.join(root, 'scripts', 'pack-platforms.js');
  for (const arg of ['-h', '--bogus', 'no-such-target']) {
    const { status, stdout, stderr } = spawnSync(process.execPath, [script, arg], { encoding: 'utf8' });
    if (arg === '-h') assert.match(stdout, /^Usage: node scripts\/pack-platforms\.js/);
    else assert.match(stderr, /^[^\n]+\nUsage: node scripts\/pack-platforms\.js/, 'one line, then the usage');
    assert.equal(status, arg === '-h' ? 0 : 2, stderr);
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  }
});

test('no tarball carries an install-time script or is private; the repo keeps prepare, which builds a clone', () => {
  // `npm install` in a clone builds the addon through `prepare`: the README's first command for a newcomer.
  assert.equal(rootManifest.scripts.prepare, 'node scripts/build.js');
  for (const tarball of [release.main, release.plain, ...Object.values(release.platforms)]) {
    const manifest = manifestOf(tarball);
    assert.deepEqual(installScripts(manifest), [], `${path.basename(tarball)}: install-time scripts`);
    assert.equal(manifest.gypfile, undefined, `${path.basename(tarball)}: gypfile makes npm run node-gyp`);
    assert.equal(manifest.private, undefined, `${path.basename(tarball)}: private, which npm refuses to publish`);
  }
  // The other scripts stay (only install-time ones and the clone's publish guard go).
  const kept = Object.keys(rootManifest.scripts).filter((name) => name !== 'prepare' && !CLONE_SCRIPTS.includes(name));
  assert.deepEqual(Object.keys(manifestOf(release.main).scripts), kept);
  // The release publishes the tarballs its pack job made the same way, not package.json.
  assert.match(WORKFLOW, /run: node scripts\/pack-platforms\.js --from addons --out packages --strict/);
  assert.match(WORKFLOW, /npm publish "\$tarball"/);
});

test('`node scripts/lib/registry.js DIR` serves the tarballs for the install line CONTRIBUTING.md gives; scripts on, npm names none of ours', async (t) => {
  const server = spawn(process.execPath, [path.join(root, 'scripts', 'lib', 'registry.js'), path.join(work, 'tarballs')]);
  try {
    let line;
    for await (line of readline.createInterface({ input: server.stdout })) if (line.startsWith('in an app: ')) break;
    assert.match(line ?? '', /^in an app: npm install /, 'registry.js printed no install line');
    const args = line.split(' ').slice(5);
    assert.ok(args.includes(`bufferutil@npm:${NAME}@^${rootManifest.version}`), line);
    const project = userProject(work, 'by-name');
    const { stdout, stderr } = await run('npm', ['install', '--no-audit', '--no-fund', ...args], { cwd: project });
    t.diagnostic(`npm ${execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim()}`);
    assert.doesNotMatch(stdout + stderr, /install-scripts|allowScripts|prepare|node scripts\/build\.js/, stdout + stderr);
    // The command the README gives, under the alias's bin link: it exits 1 unless the platform package loads.
    const cli = await run('npx', ['--no-install', NAME, '--require-native'], { cwd: project });
    assert.match(cli.stdout, new RegExp(`^backend +\\w+, the native addon: .*${release.hostPlatform}`, 'm'));
  } finally {
    server.kill();
  }
});

test('install with --ignore-scripts: native addon from the platform package; CJS, ESM, --no-addons', async () => {
  const project = await installed('native', []);
  const ours = fs.readdirSync(path.join(project, 'node_modules')).filter((dir) => dir.startsWith(NAME));
  assert.deepEqual(ours.sort(), [NAME, release.hostPlatform].sort(), "only this platform's package is installed");
  const cjs = await probe(project, 'probe.cjs');
  assert.ok(!['wasm', 'js'].includes(cjs.backend), `require() got ${cjs.backend}, not the addon`);
  assert.equal((await probe(project, 'probe.mjs')).backend, cjs.backend, 'import gets the same backend');
  const esmNoAddons = await probe(project, 'probe.mjs', ['--no-addons']);
  assert.equal(esmNoAddons.backend, 'wasm');
  // import.meta.resolve exists from Node 20.6; where it does, --no-addons must resolve to the entry without an addon.
  if (esmNoAddons.entry !== 'unknown') assert.match(esmNoAddons.entry, /\/portable\.mjs$/);
  // require() keeps index.js: Deno's require() has exactly the conditions of `node --no-addons`, so a resolve-time split
  // would cost Deno its addon; index.js itself turns the refused dlopen into 'wasm'.
  const cjsNoAddons = await probe(project, 'probe.cjs', ['--no-addons']);
  assert.deepEqual([cjsNoAddons.backend, path.basename(cjsNoAddons.entry)], ['wasm', 'index.js']);
});

test('install without the platform package (--omit=optional): the WebAssembly tier', async () => {
  const project = await installed('fallback', ['--omit=optional']);
  assert.ok(!fs.existsSync(path.join(project, 'node_modules', release.hostPlatform)));
  for (const file of ['probe.cjs', 'probe.mjs']) assert.equal((await probe(project, file)).backend, 'wasm', file);
  const cli = await run('npx', ['--no-install', NAME, '--require-native'], { cwd: project }).catch((error) => error);
  const fix = new RegExp(`fix: Install ${release.hostPlatform}@.* where this code runs: .* unless --omit=optional`);
  assert.equal(cli.code, 1);
  assert.match(cli.message, fix);
});
