'use strict';

// A ws and a WebSocket-Node echo app, with this package installed as `bufferutil` from the release's tarballs,
// bundled by esbuild, webpack and rollup (CommonJS and ES module), each bundle run in place and copied alone into
// an empty folder, echoing real frames over 127.0.0.1: the addon in place (not rollup's ES module output), alone
// WebAssembly; a run without the addon warns once. No bundler may warn of this package's files.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { createRequire } = require('node:module');
const { rootManifest, packRelease, tempDir, run, npmInstall } = require('../../scripts/lib/packages');
const { startRegistry } = require('../../scripts/lib/registry');

const NAME = rootManifest.name;
const FIXTURE = path.join(__dirname, 'bundlers');
const APPS = ['app-ws', 'app-websocket'];
const wsVersion = rootManifest.devDependencies.ws;
const NATIVE = 'native';
// Paths of this package's own files as a bundler reports them: installed as `bufferutil` (the alias) or
// under its own name.
const OURS = /node_modules[\\/](?:bufferutil|bufferutil-simd)[\\/]/;
// This package's warnings, with a code or (BUFFERUTIL_SIMD_LEVEL's) without.
const OUR_WARNINGS = /\[BUFFERUTIL_SIMD_\w+\] Warning|Warning: BUFFERUTIL_SIMD/g;

/** Each bundler and format, and the tier its bundles must get in place (alone: always WebAssembly). */
const CONFIGS = ['esbuild', 'webpack', 'rollup'].flatMap((bundler) =>
  ['cjs', 'esm'].map((format) => ({
    name: `${bundler}-${format}`,
    bundler,
    format,
    // Nothing in a rollup ES module bundle can find a file at run time.
    inPlace: bundler === 'rollup' && format === 'esm' ? 'wasm' : NATIVE,
  }))
);
// ws itself calls require("http"), which an ES module bundle has only through the usual banner.
const ESM_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

let work;
let registry;
let project;
let release;
let projectRequire;
const bundles = new Map(); // config name -> { files: { app: path }, warnings: [string] }

before(async () => {
  work = tempDir('bufferutil-simd-bundlers-');
  release = packRelease(work);
  registry = await startRegistry([release.main, ...Object.values(release.platforms)]);
  project = path.join(work, 'app');
  fs.cpSync(FIXTURE, project, { recursive: true });
  // The bundlers and WebSocket-Node from the fixture's lockfile; ws and this package as a user adds them.
  // Scripts off: nothing here needs one (esbuild's binary comes as an optional dependency).
  await npmInstall(project, registry.url, ['--ignore-scripts', `ws@${wsVersion}`, `bufferutil@npm:${NAME}`]);
  projectRequire = createRequire(path.join(project, 'package.json'));
  const installed = JSON.parse(fs.readFileSync(path.join(project, 'node_modules', 'bufferutil', 'package.json'), 'utf8'));
  assert.equal(installed.name, NAME, 'node_modules/bufferutil is this package');
  // WebSocket-Node depends on bufferutil@^4: npm lets the alias serve it, so it gets this package too.
  assert.ok(!fs.existsSync(path.join(project, 'node_modules', 'websocket', 'node_modules', 'bufferutil')));
  assert.ok(fs.existsSync(path.join(project, 'node_modules', release.hostPlatform)));

  for (const config of CONFIGS) bundles.set(config.name, await build(config));
});

after(async () => {
  await registry?.close();
  if (work && !process.env.KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

/** Bundles both apps with `config` into `<project>/dist/<name>/`; resolves to their paths and every warning. */
async function build(config) {
  const dir = path.join(project, 'dist', config.name);
  const extension = config.format === 'esm' ? 'mjs' : 'js';
  const files = {};
  const warnings = [];
  for (const app of APPS) {
    files[app] = path.join(dir, `${app}.${extension}`);
    const bundle = { esbuild, webpack, rollup }[config.bundler];
    warnings.push(...(await bundle(path.join(project, `${app}.js`), files[app], config.format)));
  }
  return { files, warnings };
}

async function esbuild(entry, outfile, format) {
  const result = await projectRequire('esbuild').build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format,
    banner: format === 'esm' ? { js: ESM_BANNER } : undefined,
    logLevel: 'silent',
  });
  return result.warnings.map((warning) => `${warning.location?.file ?? ''}: ${warning.text}`);
}

/** webpack for Node, as its docs set it up: target node, no other option that changes resolution. */
async function webpack(entry, file, format, extra = {}) {
  const config = {
    mode: 'production',
    target: 'node',
    context: path.dirname(entry),
    entry,
    output: { path: path.dirname(file), filename: path.basename(file), ...(format === 'esm' && { module: true }) },
    ...(format === 'esm' && { experiments: { outputModule: true } }),
    optimization: { minimize: false },
    devtool: false,
    ...extra,
  };
  const stats = await new Promise((resolve, reject) => {
    projectRequire('webpack')(config, (error, result) => (error ? reject(error) : resolve(result)));
  });
  const { errors, warnings } = stats.toJson({ all: false, errors: true, warnings: true, moduleTrace: false });
  assert.deepEqual(errors, [], `webpack: ${errors.map((error) => error.message).join('\n')}`);
  return warnings.map((warning) => `${warning.moduleName ?? ''}: ${warning.message}`);
}

/** rollup for Node, as most configs have it: node-resolve preferring builtins, commonjs, json. */
async function rollup(entry, file, format) {
  const warnings = [];
  const { nodeResolve } = projectRequire('@rollup/plugin-node-resolve');
  const bundle = await projectRequire('rollup').rollup({
    input: entry,
    plugins: [
      nodeResolve({ preferBuiltins: true }),
      projectRequire('@rollup/plugin-commonjs')(),
      projectRequire('@rollup/plugin-json')(),
    ],
    onwarn: (warning) => warnings.push(`${warning.id ?? warning.loc?.file ?? ''}: ${warning.code}: ${warning.message}`),
  });
  await bundle.write({ file, format: format === 'esm' ? 'es' : 'cjs' });
  await bundle.close();
  return warnings;
}

/** Runs a bundle in `cwd`; resolves to the JSON line it prints, its stderr and exit code. */
async function runBundle(file, cwd = path.dirname(file)) {
  const env = { ...process.env };
  for (const name of ['WS_NO_BUFFER_UTIL', 'BUFFERUTIL_SIMD_LEVEL', 'NODE_OPTIONS', 'NODE_PATH']) delete env[name];
  try {
    const { stdout, stderr } = await run(process.execPath, [file], { cwd, env, timeout: 30_000 });
    return { ...JSON.parse(stdout.trim().split('\n').pop()), stderr, code: 0 };
  } catch (error) {
    return { code: error.code ?? 1, stderr: error.message };
  }
}

/** A copy of `file` in folder `dir`, from which the platform package cannot be found (yet). */
function copyTo(file, dir) {
  fs.mkdirSync(dir, { recursive: true });
  const copy = path.join(dir, path.basename(file));
  fs.copyFileSync(file, copy);
  assert.throws(
    () => createRequire(copy).resolve(release.hostPlatform),
    /Cannot find module/,
    `${release.hostPlatform} from ${dir}`
  );
  return copy;
}

/** Asserts that a run echoed every frame through the bufferutil it bundled, at the tier `want`. */
function assertRun(result, want, what) {
  assert.equal(result.code, 0, `${what}: exit ${result.code}\n${result.stderr}`);
  if (want === NATIVE) assert.ok(!['wasm', 'js'].includes(result.backend), `${what}: backend ${result.backend}, not the addon`);
  else assert.equal(result.backend, want, what);
  // The echo checked every byte; the counts say the app's library did the work (null: not countable).
  if (result.calls !== null) assert.deepEqual(result.calls, result.expected, `${what}: calls to mask/unmask`);
  const warned = result.stderr.match(OUR_WARNINGS) ?? [];
  assert.deepEqual(warned, want === NATIVE ? [] : ['[BUFFERUTIL_SIMD_NO_ADDON] Warning'], `${what}: ${result.stderr}`);
}

for (const config of CONFIGS) {
  test(`${config.name}: no bundler warns of this package; ${config.inPlace} in place, wasm alone, one warning without the addon`, async (t) => {
    const { files, warnings } = bundles.get(config.name);
    for (const warning of warnings) t.diagnostic(`bundler warning: ${warning.split('\n')[0]}`);
    const ours = warnings.filter((warning) => OURS.test(warning));
    assert.deepEqual(ours, [], `${config.bundler} warned about this package's files`);

    for (const app of APPS) {
      assertRun(await runBundle(files[app]), config.inPlace, `${config.name} ${app} in place`);
      const alone = copyTo(files[app], path.join(work, 'alone', `${config.name}-${app}`));
      assertRun(await runBundle(alone), 'wasm', `${config.name} ${app} alone`);
    }
  });
}

test('a platform package copied beside a bundle: the addon at this version, WebAssembly and a warning at another', async () => {
  const platformDir = path.join(project, 'node_modules', release.hostPlatform);
  for (const config of CONFIGS.filter(({ inPlace }) => inPlace === NATIVE)) {
    for (const version of [rootManifest.version, '4.0.0']) {
      const dir = path.join(work, 'beside', `${config.name}-${version}`);
      const file = copyTo(bundles.get(config.name).files['app-ws'], dir);
      const copied = path.join(dir, 'node_modules', release.hostPlatform);
      fs.cpSync(platformDir, copied, { recursive: true });
      const manifestPath = path.join(copied, 'package.json');
      const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
      fs.writeFileSync(manifestPath, JSON.stringify({ ...manifest, version }));

      const result = await runBundle(file);
      const what = `${config.name} beside ${release.hostPlatform}@${version}`;
      if (version === rootManifest.version) {
        assertRun(result, NATIVE, what);
        continue;
      }
      // WebAssembly, and its one warning names the copy's version and the fix.
      assertRun(result, 'wasm', what);
      const platform = `${release.hostPlatform}: version 4.0.0, not ${rootManifest.version}: not loaded (${fs.realpathSync(copied)})`;
      assert.ok(result.stderr.includes(platform), result.stderr);
      assert.ok(result.stderr.includes(`Ship ${release.hostPlatform}@${rootManifest.version} beside this bundle`), result.stderr);
    }
  }
});

test('a pnpm layout, the platform package only beside this package: the addon in place', async () => {
  // pnpm 10's layout for `pnpm add ws bufferutil@npm:bufferutil-simd`: node_modules/bufferutil links to the
  // package in the virtual store, and the platform package is linked only beside it there, so a bundle
  // finds it through this package's own folder.
  const dir = path.join(work, 'pnpm');
  const store = path.join(dir, 'node_modules', '.pnpm', `${NAME}@${rootManifest.version}`, 'node_modules');
  fs.cpSync(path.join(project, 'node_modules', 'bufferutil'), path.join(store, NAME), { recursive: true });
  fs.cpSync(path.join(project, 'node_modules', release.hostPlatform), path.join(store, release.hostPlatform), {
    recursive: true,
  });
  fs.symlinkSync(path.join(store, NAME), path.join(dir, 'node_modules', 'bufferutil'), 'junction');
  for (const config of CONFIGS.filter(({ inPlace }) => inPlace === NATIVE)) {
    const copy = copyTo(bundles.get(config.name).files['app-ws'], path.join(dir, 'dist', config.name));
    assertRun(await runBundle(copy), NATIVE, `${config.name} in a pnpm layout`);
  }
});

test("webpack's resolve.fallback = { bufferutil: false }: ws crashes without this package, works with it", async (t) => {
  // The snippet Next.js answers give: a missing bufferutil becomes an empty module, which ws's try/catch
  // cannot tell from a loaded one.
  const extra = { resolve: { fallback: { bufferutil: false, 'utf-8-validate': false } } };
  const withPackage = path.join(project, 'dist', 'webpack-fallback', 'app-ws.js');
  const warnings = await webpack(path.join(project, 'app-ws.js'), withPackage, 'cjs', extra);
  assert.ok(!warnings.some((warning) => OURS.test(warning)), warnings.join('\n'));
  // Resolution finds the installed package first, so the fallback never applies.
  assertRun(await runBundle(withPackage), NATIVE, 'with this package');

  // Without it: a project with ws alone (outside the first one, so that nothing resolves bufferutil).
  const bare = path.join(work, 'without');
  fs.cpSync(path.join(project, 'node_modules', 'ws'), path.join(bare, 'node_modules', 'ws'), { recursive: true });
  for (const file of ['app-ws.js', 'count-calls.js']) fs.copyFileSync(path.join(project, file), path.join(bare, file));
  const withoutPackage = path.join(bare, 'dist', 'app-ws.js');
  await webpack(path.join(bare, 'app-ws.js'), withoutPackage, 'cjs', extra);
  const result = await runBundle(withoutPackage);
  if (typeof http.websocketMask === 'function') {
    t.diagnostic(`Node ${process.version} has http.websocketMask: ws never loads bufferutil, so the empty module is harmless`);
    assert.equal(result.code, 0, result.stderr);
  } else {
    assert.notEqual(result.code, 0, 'ws did not crash on the empty bufferutil');
    assert.match(result.stderr, /bufferUtil\.(un)?mask is not a function/);
    t.diagnostic(`without this package: ${/bufferUtil\.(un)?mask is not a function/.exec(result.stderr)[0]}`);
  }
});
