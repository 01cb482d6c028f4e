'use strict';

// A ws and a WebSocket-Node echo app, with this package installed as `bufferutil` from the release's tarballs, bundled
// by esbuild, webpack and rollup (CommonJS and ES module), each bundle run in place and copied alone into an empty
// folder, echoing real frames over 127.0.0.1. No bundler may warn of this package's files.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { createRequire } = require('node:module');
const { promisify } = require('node:util');
const { rootManifest, run, npmInstall } = require('../../scripts/lib/packages');
const { cleanEnv } = require('../../scripts/lib/child');
const { serveRelease } = require('./mixed-app');

const { name: NAME, version: VERSION } = rootManifest;
const APPS = ['app-ws', 'app-websocket'];
const NATIVE = 'native';
// Paths of this package's own files as a bundler reports them: installed as `bufferutil` (the alias) or under its own name.
const OURS = /node_modules[\\/](?:bufferutil|bufferutil-simd)[\\/]/;
// This package's warnings, with a code or (BUFFERUTIL_SIMD_LEVEL's) without.
const OUR_WARNINGS = /\[BUFFERUTIL_SIMD_\w+\] Warning|Warning: BUFFERUTIL_SIMD/g;
// ws itself calls require("http"), which an ES module bundle has only through the usual banner.
const ESM_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/** Each bundler and format, and the tier its bundles get in place (alone: WebAssembly, with one warning). Nothing in a
 * rollup ES module bundle can find a file at run time. */
const CONFIGS = ['esbuild', 'webpack', 'rollup'].flatMap((bundler) => [
  { name: `${bundler}-cjs`, bundler, format: 'cjs', inPlace: NATIVE },
  { name: `${bundler}-esm`, bundler, format: 'esm', inPlace: bundler === 'rollup' ? 'wasm' : NATIVE },
]);

let [work, release, project, projectRequire] = [];
const bundles = new Map(); // config name -> { files: { app: path }, warnings: [string] }

serveRelease('bufferutil-simd-bundlers-', async (served) => {
  ({ work, release } = served);
  project = path.join(work, 'app');
  fs.cpSync(path.join(__dirname, 'bundlers'), project, { recursive: true });
  // The bundlers and WebSocket-Node from the fixture's lockfile; ws and this package as a user adds them (the alias serves
  // WebSocket-Node's bufferutil@^4 too). Scripts off: nothing needs one (esbuild's binary is an optional dependency).
  const ws = `ws@${rootManifest.devDependencies.ws}`;
  await npmInstall(project, served.registry.url, ['--ignore-scripts', ws, `bufferutil@npm:${NAME}`]);
  projectRequire = createRequire(path.join(project, 'package.json'));
  assert.equal(projectRequire('bufferutil/package.json').name, NAME, 'node_modules/bufferutil is this package');
  for (const { name, bundler, format } of CONFIGS) {
    const [files, warnings] = [{}, []];
    for (const app of APPS) {
      files[app] = path.join(project, 'dist', name, `${app}.${format === 'esm' ? 'mjs' : 'js'}`);
      warnings.push(...(await BUNDLERS[bundler](path.join(project, `${app}.js`), files[app], format)));
    }
    bundles.set(name, { files, warnings });
  }
});

/** Each bundler: bundles `entry` into `file` as `format`; resolves to its warnings. */
const BUNDLERS = {
  async esbuild(entry, outfile, format) {
    const banner = format === 'esm' ? { js: ESM_BANNER } : undefined;
    const options = { entryPoints: [entry], outfile, bundle: true, platform: 'node', format, banner, logLevel: 'silent' };
    const { warnings } = await projectRequire('esbuild').build(options);
    return warnings.map((warning) => `${warning.location?.file ?? ''}: ${warning.text}`);
  },
  /** For Node, as webpack's docs set it up: target node, no other option that changes resolution. */
  async webpack(entry, file, format, extra = {}) {
    const esm = format === 'esm';
    const output = { path: path.dirname(file), filename: path.basename(file), module: esm };
    const config = { mode: 'production', target: 'node', context: path.dirname(entry), entry, output, devtool: false };
    const webpack = promisify(projectRequire('webpack'));
    const stats = await webpack({ ...config, experiments: { outputModule: esm }, optimization: { minimize: false }, ...extra });
    const { errors, warnings } = stats.toJson({ all: false, errors: true, warnings: true, moduleTrace: false });
    assert.deepEqual(errors, [], `webpack: ${errors.map((error) => error.message).join('\n')}`);
    return warnings.map((warning) => `${warning.moduleName ?? ''}: ${warning.message}`);
  },
  /** For Node, as most rollup configs have it: node-resolve preferring builtins, commonjs, json. */
  async rollup(input, file, format) {
    const warnings = [];
    const { nodeResolve } = projectRequire('@rollup/plugin-node-resolve');
    const [commonjs, json] = [projectRequire('@rollup/plugin-commonjs'), projectRequire('@rollup/plugin-json')];
    const plugins = [nodeResolve({ preferBuiltins: true }), commonjs(), json()];
    const onwarn = (warning) => warnings.push(`${warning.id ?? warning.loc?.file ?? ''}: ${warning.code}: ${warning.message}`);
    const bundle = await projectRequire('rollup').rollup({ input, plugins, onwarn });
    await bundle.write({ file, format: format === 'esm' ? 'es' : 'cjs' });
    await bundle.close();
    return warnings;
  },
};

/** Runs a bundle in its folder: the JSON line it prints, its stderr and exit code. */
async function runBundle(file) {
  const env = cleanEnv({ WS_NO_BUFFER_UTIL: undefined, NODE_PATH: undefined });
  const ran = await run(process.execPath, [file], { cwd: path.dirname(file), env, timeout: 30_000 }).catch((error) => error);
  if (ran instanceof Error) return { code: ran.code ?? 1, stderr: ran.message };
  return { ...JSON.parse(ran.stdout.trim().split('\n').pop()), stderr: ran.stderr, code: 0 };
}

/** A copy of `file` in folder `dir`, from which the platform package cannot be found (yet). */
function copyTo(file, dir) {
  fs.mkdirSync(dir, { recursive: true });
  const copy = path.join(dir, path.basename(file));
  fs.copyFileSync(file, copy);
  const where = `${release.hostPlatform} from ${dir}`;
  assert.throws(() => createRequire(copy).resolve(release.hostPlatform), /Cannot find module/, where);
  return copy;
}

/** Asserts that a run echoed every frame through the bufferutil it bundled, at the tier `want`. */
function assertRun(result, want, what) {
  assert.equal(result.code, 0, `${what}: exit ${result.code}\n${result.stderr}`);
  if (want === NATIVE) assert.ok(!['wasm', 'js'].includes(result.backend), `${what}: backend ${result.backend}, not the addon`);
  else assert.equal(result.backend, want, what);
  // The echo checked every byte; the counts say the app's library did the work.
  assert.deepEqual(result.calls, result.expected, `${what}: calls to mask/unmask`);
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

test('a platform package beside a bundle: the addon at this version, WebAssembly and a warning at another; the addon in a pnpm layout', async () => {
  // pnpm 10's layout for `pnpm add ws bufferutil@npm:bufferutil-simd`: node_modules/bufferutil links to the package in
  // the virtual store, and the platform package is linked only beside it there: a bundle finds it through that folder.
  const [pnpm, modules] = [path.join(work, 'pnpm'), path.join(project, 'node_modules')];
  const store = path.join(pnpm, 'node_modules', '.pnpm', `${NAME}@${VERSION}`, 'node_modules');
  fs.cpSync(path.join(modules, 'bufferutil'), path.join(store, NAME), { recursive: true });
  fs.cpSync(path.join(modules, release.hostPlatform), path.join(store, release.hostPlatform), { recursive: true });
  fs.symlinkSync(path.join(store, NAME), path.join(pnpm, 'node_modules', 'bufferutil'), 'junction');
  for (const config of CONFIGS.filter(({ inPlace }) => inPlace === NATIVE)) {
    const bundle = bundles.get(config.name).files['app-ws'];
    const inPnpm = copyTo(bundle, path.join(pnpm, 'dist', config.name));
    assertRun(await runBundle(inPnpm), NATIVE, `${config.name} in a pnpm layout`);
    // The warning's text at another version, and its fix for a bundle: __test__/loader.test.js.
    for (const version of [VERSION, '4.0.0']) {
      const dir = path.join(work, 'beside', `${config.name}-${version}`);
      const file = copyTo(bundle, dir);
      const copied = path.join(dir, 'node_modules', release.hostPlatform);
      fs.cpSync(path.join(modules, release.hostPlatform), copied, { recursive: true });
      const manifest = path.join(copied, 'package.json');
      fs.writeFileSync(manifest, JSON.stringify({ ...JSON.parse(fs.readFileSync(manifest, 'utf8')), version }));
      const tier = version === VERSION ? NATIVE : 'wasm';
      assertRun(await runBundle(file), tier, `${config.name} beside ${release.hostPlatform}@${version}`);
    }
  }
});

test("webpack's resolve.fallback = { bufferutil: false }: ws crashes without this package, works with it", async (t) => {
  // The snippet Next.js answers give: a missing bufferutil becomes an empty module, which ws's try/catch
  // cannot tell from a loaded one.
  const extra = { resolve: { fallback: { bufferutil: false, 'utf-8-validate': false } } };
  const withPackage = path.join(project, 'dist', 'webpack-fallback', 'app-ws.js');
  const warnings = await BUNDLERS.webpack(path.join(project, 'app-ws.js'), withPackage, 'cjs', extra);
  assert.ok(!warnings.some((warning) => OURS.test(warning)), warnings.join('\n'));
  // Resolution finds the installed package first, so the fallback never applies.
  assertRun(await runBundle(withPackage), NATIVE, 'with this package');

  // Without it: a project with ws alone (outside the first one, so that nothing resolves bufferutil).
  const bare = path.join(work, 'without');
  fs.cpSync(path.join(project, 'node_modules', 'ws'), path.join(bare, 'node_modules', 'ws'), { recursive: true });
  for (const file of ['app-ws.js', 'count-calls.js']) fs.copyFileSync(path.join(project, file), path.join(bare, file));
  const withoutPackage = path.join(bare, 'dist', 'app-ws.js');
  await BUNDLERS.webpack(path.join(bare, 'app-ws.js'), withoutPackage, 'cjs', extra);
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
