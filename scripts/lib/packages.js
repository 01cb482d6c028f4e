'use strict';

// What the install and runtime tests share: the tarballs a release publishes, packed (from a staged copy of the
// repo) without publishing; the user projects they go in; a throwaway npm registry on 127.0.0.1 that serves them
// as if published and passes every other request to the real one, so the tests run a user's exact commands
// (`npm install bufferutil@npm:bufferutil-simd`, optionalDependencies chosen by os/cpu/libc); and a test process
// in another runtime, its output to a log file (Wine's console gives a Windows process whose stdout is a pipe
// EBADF) and its test run's totals and failures read back.

const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { execFile, execFileSync, spawnSync } = require('node:child_process');
const zlib = require('node:zlib');
const { platformOf } = require('../targets');

const root = path.resolve(__dirname, '../..');
const rootManifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const { name: NAME, version: VERSION } = rootManifest;
const { binaryName, targets: TARGETS } = rootManifest.napi;
const execFileAsync = require('node:util').promisify(execFile);
const WINDOWS = process.platform === 'win32';

// The lifecycle scripts npm runs on install (prepare for git and local folders): the clone's `prepare` builds
// the addon, and npm 11 lists it as an install script of a registry tarball too, so tarballs drop them.
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'];
// What refuses a publish from a clone, whose manifest lists no platform packages (scripts/refuse-publish.js).
const CLONE_SCRIPTS = ['prepublishOnly'];

/** The install-time scripts a manifest has, as `name: command` strings. */
const installScripts = (manifest) =>
  Object.entries(manifest.scripts ?? {})
    .filter(([name]) => INSTALL_SCRIPTS.includes(name))
    .map(([name, command]) => `${name}: ${command}`);

/** Writes `manifest` as it is published: the same fields in the same order, without `private` and the clone's scripts. */
function writeManifest(file, { private: _clone, ...manifest }) {
  const kept = Object.entries(manifest.scripts ?? {}).filter(([name]) => ![...INSTALL_SCRIPTS, ...CLONE_SCRIPTS].includes(name));
  if (kept.length) manifest.scripts = Object.fromEntries(kept);
  else delete manifest.scripts;
  fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

function npmPack(dir, destination) {
  fs.mkdirSync(destination, { recursive: true });
  const args = ['pack', '--json', '--ignore-scripts', '--pack-destination', destination];
  const [{ filename }] = JSON.parse(execFileSync('npm', args, { cwd: dir, encoding: 'utf8' }));
  return path.join(destination, filename);
}

/**
 * Packs into `out` the platform packages of the addons in `artifacts` (as scripts/build.js names them), at the
 * root's version, and the root, whose optionalDependencies name every napi target at that version. Returns
 * `{ main, plain, platforms: { packageName: tarball } }`, `plain` being the root without optionalDependencies.
 */
function packArtifacts(artifacts, out) {
  const built = TARGETS.filter((target) => fs.existsSync(path.join(artifacts, `${binaryName}.${platformOf(target)}.node`)));
  if (!built.length) throw new Error(`no ${binaryName}.*.node for any napi target in ${artifacts}`);
  const stage = tempDir('bufferutil-simd-stage-');
  try {
    // `npm pack` of the repo picks the files; the stage holds them with the published manifest.
    execFileSync('tar', ['-xzf', npmPack(root, stage), '-C', stage]);
    const pkg = path.join(stage, 'package');
    const manifestFile = path.join(pkg, 'package.json');
    writeManifest(manifestFile, rootManifest);
    const plain = npmPack(pkg, path.join(out, 'plain'));

    const platforms = {};
    for (const target of built) {
      const platform = platformOf(target);
      const dir = path.join(stage, 'npm', platform);
      fs.cpSync(path.join(root, 'npm', platform), dir, { recursive: true });
      fs.copyFileSync(path.join(artifacts, `${binaryName}.${platform}.node`), path.join(dir, `${binaryName}.${platform}.node`));
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      writeManifest(path.join(dir, 'package.json'), { ...manifest, version: VERSION });
      platforms[manifest.name] = npmPack(dir, out);
    }
    const optionalDependencies = Object.fromEntries(TARGETS.map((target) => [`${NAME}-${platformOf(target)}`, VERSION]));
    writeManifest(manifestFile, { ...rootManifest, optionalDependencies });
    return { main: npmPack(pkg, out), plain, platforms };
  } finally {
    if (!process.env.KEEP_TEMP) fs.rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * The release's tarballs, into `<work>/tarballs`, with only this machine's platform package: the addon
 * `npm run build` left in the repo root. Adds `hostPlatform`, that package's name.
 */
function packRelease(work) {
  const out = path.join(work, 'tarballs');
  const platform = `${process.platform}-${process.arch}`;
  const file = fs.readdirSync(root).find((name) => name.startsWith(`${binaryName}.${platform}`) && name.endsWith('.node'));
  if (!file) throw new Error(`no ${binaryName}.${platform}*.node in ${root}: run \`npm run build\` first`);
  const artifacts = path.join(out, 'artifacts');
  fs.mkdirSync(artifacts, { recursive: true });
  fs.copyFileSync(path.join(root, file), path.join(artifacts, file));
  const hostPlatform = `${NAME}-${file.slice(binaryName.length + 1, -'.node'.length)}`;
  return { ...packArtifacts(artifacts, out), hostPlatform };
}

const tempDir = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/**
 * The node:test suite copied into an installed package, to run against it: `__test__/` but for what needs
 * the repo (integration, types), and scripts/smoke.js and test-js.js, which serve and run it.
 */
function copySuite(installed) {
  fs.cpSync(path.join(root, '__test__'), path.join(installed, '__test__'), {
    recursive: true,
    filter: (source) => !/__test__[\\/](integration|types)$/.test(source),
  });
  fs.mkdirSync(path.join(installed, 'scripts'), { recursive: true });
  for (const file of ['smoke.js', 'test-js.js'])
    fs.copyFileSync(path.join(root, 'scripts', file), path.join(installed, 'scripts', file));
}

/** A user's empty project. */
function userProject(work, name) {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, private: true }, null, 2));
  return dir;
}

/** Runs a command without blocking the event loop (the local registry lives in this process); npm is npm.cmd on Windows. */
const run = (command, args, options) =>
  execFileAsync(command, args, { encoding: 'utf8', maxBuffer: 64 << 20, shell: WINDOWS, ...options }).catch((error) => {
    error.message += `\n--- stdout\n${error.stdout}\n--- stderr\n${error.stderr}`;
    throw error;
  });

/** `npm install` in `cwd` against `registry`, quietly; resolves to npm's output. */
const npmInstall = (cwd, registry, args) =>
  run('npm', ['install', '--registry', registry, '--no-audit', '--no-fund', '--no-update-notifier', ...args], { cwd });

/** A tarball's package/package.json, read in Node: Windows runners may have no `tar` that takes a drive letter. */
function manifestOf(tarball) {
  const tar = zlib.gunzipSync(fs.readFileSync(tarball));
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0; ) {
    const field = (from, length) => tar.toString('utf8', at + from, at + from + length).replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const name = [field(345, 155), field(0, 100)].filter(Boolean).join('/');
    if (name === 'package/package.json') return JSON.parse(tar.toString('utf8', at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${tarball} has no package/package.json`);
}

/** Starts the registry; resolves to `{ url, close() }`. Unknown packages come from the registry npm is configured with. */
async function startRegistry(tarballs) {
  const upstream = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', shell: WINDOWS }).trim();
  const [packuments, files] = [new Map(), new Map()];
  const send = (res, status, type, body) =>
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
  const server = http.createServer(async (req, res) => {
    const { pathname } = new URL(req.url, 'http://localhost');
    const name = decodeURIComponent(pathname.slice(1));
    try {
      if (packuments.has(name)) return send(res, 200, 'application/json', JSON.stringify(packuments.get(name)));
      if (files.has(pathname)) return send(res, 200, 'application/octet-stream', files.get(pathname));
      const reply = await fetch(new URL(req.url.slice(1), upstream), { headers: { accept: req.headers.accept ?? '*/*' } });
      const type = reply.headers.get('content-type') ?? 'application/octet-stream';
      send(res, reply.status, type, Buffer.from(await reply.arrayBuffer()));
    } catch (error) {
      send(res, 502, 'text/plain', String(error));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;

  for (const tarball of tarballs) {
    const manifest = manifestOf(tarball);
    const data = fs.readFileSync(tarball);
    const file = `/${manifest.name}/-/${manifest.name}-${manifest.version}.tgz`;
    files.set(file, data);
    const packument = packuments.get(manifest.name) ?? { name: manifest.name, 'dist-tags': {}, versions: {} };
    packument['dist-tags'].latest = manifest.version;
    packument.versions[manifest.version] = {
      ...manifest,
      _id: `${manifest.name}@${manifest.version}`,
      dist: {
        tarball: new URL(file.slice(1), url).href,
        integrity: `sha512-${crypto.createHash('sha512').update(data).digest('base64')}`,
        shasum: crypto.createHash('sha1').update(data).digest('hex'),
      },
    };
    packuments.set(manifest.name, packument);
  }
  return { url, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** This environment without what would change the run: a level cap, or a flag one Node takes and another refuses. */
function cleanEnv(extra = {}) {
  const { BUFFERUTIL_SIMD_LEVEL, NODE_OPTIONS, ...env } = process.env;
  return { ...env, ...extra };
}

/** Runs `command` with stdout and stderr to the file `log`; returns the exit status and the log's text. */
function runLogged(command, args, { cwd, env = cleanEnv(), log, timeout }) {
  fs.mkdirSync(path.dirname(log), { recursive: true });
  const out = fs.openSync(log, 'w');
  const run = spawnSync(command, args, { cwd, env, timeout, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  if (run.error && run.error.code !== 'ETIMEDOUT') throw run.error;
  return { status: run.status ?? run.signal, text: fs.readFileSync(log, 'utf8') };
}

/** The last lines of a run's output, on one line. */
const tail = (text, lines = 3) => text.trim().split('\n').slice(-lines).join(' | ');

/** A run's totals as `node --test --test-reporter=tap` (`# pass 3`), `bun test` (` 3 pass`) or `deno test` print them. */
function totals(text) {
  const counts = {};
  for (const [, key, value] of text.matchAll(/^# (tests|pass|fail|cancelled|skipped) (\d+)$/gm)) counts[key] = Number(value);
  for (const [, value, key] of text.matchAll(/^ (\d+) (pass|fail|skip)$/gm))
    counts[key.replace('skip', 'skipped')] = Number(value);
  const deno = /^(?:ok|FAILED) \| (\d+) passed.*? \| (\d+) failed(?: \| (\d+) ignored)?/m.exec(text);
  if (deno) [counts.pass, counts.fail, counts.skipped] = deno.slice(1).map((n) => Number(n ?? 0));
  counts.tests ??= (counts.pass ?? 0) + (counts.fail ?? 0) + (counts.skipped ?? 0);
  return counts;
}

/**
 * Prints a test run's totals (`label`, time since `started`), its failing tests and every skip's reason (a
 * skip must say why); returns whether it passed: exit 0, no failure, some tests.
 */
function testSummary(label, { status, text }, log, started) {
  const counts = totals(text);
  const ok = status === 0 && counts.fail === 0 && counts.tests > 0;
  const tally = `${counts.pass ?? '?'} pass, ${counts.fail ?? '?'} fail, ${counts.skipped ?? '?'} skipped, ${counts.cancelled ?? 0} cancelled`;
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(`${label}: ${tally} in ${seconds} s: ${ok ? 'pass' : `FAIL (exit ${status})`}`);
  if (!ok) {
    const lines = text.split('\n');
    const failing = lines.flatMap((line, i) => {
      if (!/^\s*not ok |^\(fail\) | \.\.\. FAILED/.test(line)) return [];
      const error = lines.slice(i + 1, i + 12).find((next) => /^\s+error: /.test(next));
      return [`${line.trim()}${error ? ` (${error.trim().slice(0, 200)})` : ''}`];
    });
    for (const failure of failing.slice(0, 20)) console.log(`    ${failure}`);
    console.log(`    full output: ${path.relative(process.cwd(), log)}`);
  }
  const skips = new Map();
  for (const [, reason] of text.matchAll(/# SKIP (.*)$/gm)) skips.set(reason, (skips.get(reason) ?? 0) + 1);
  for (const [reason, count] of skips) console.log(`    skipped ${count}: ${reason}`);
  return ok;
}

module.exports = {
  root,
  rootManifest,
  CLONE_SCRIPTS,
  installScripts,
  packArtifacts,
  packRelease,
  tempDir,
  copySuite,
  userProject,
  run,
  npmInstall,
  startRegistry,
  cleanEnv,
  runLogged,
  tail,
  testSummary,
};
