#!/usr/bin/env node
'use strict';

// `npx bufferutil-simd`: what the package loads here and from where (or why not, and what to install),
// whether this Node's ws bypasses every bufferutil, and a few-second benchmark on this CPU against ws's
// JavaScript loop and, where the project or Node has them, bufferutil and core's http.websocketMask. It
// reports on the copy the project in the working directory loads. Nothing here runs on `require()` of the package.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createRequire } = require('node:module');
const { randomBytes } = require('node:crypto');
const { spawnSync } = require('node:child_process');

const USAGE = `Usage: npx bufferutil-simd [options]: what loads here, and how fast it is on this CPU

  --require-native  exit 1 unless the native addon loaded (for CI and Dockerfiles); skips the benchmark
  --bench           run the benchmark even with --require-native
  --no-bench        skip the benchmark
  --seconds=S       benchmark budget in seconds, S > 0 (default 3); also --seconds S
  --quick           a tiny budget: proves the benchmark runs, timings meaningless
  --json            one JSON object on stdout
  --help            this text`;

// `--seconds S` is read as `--seconds=S`.
const argv = process.argv.slice(2);
const args = argv
  .map((arg, i) => (arg === '--seconds' && i + 1 < argv.length ? `--seconds=${argv[i + 1]}` : arg))
  .filter((_, i) => argv[i - 1] !== '--seconds');
const manifest = require('../package.json');
// A global install, or npx's own copy, beside a project with a copy of its own: that copy's bin, with this
// process's Node flags and every argument, reports on what the project loads.
const project = [fromProject('bufferutil'), fromProject(manifest.name)].find((found) => found?.name === manifest.name);
const binPath = typeof project?.bin === 'string' ? project.bin : project?.bin?.[manifest.name];
const projectBin = binPath && path.join(project.dir, binPath);
if (projectBin && fs.realpathSync(project.dir) !== fs.realpathSync(path.join(__dirname, '..')) && fs.existsSync(projectBin)) {
  console.error(`${manifest.name}: reporting on this project's copy, ${project.dir}`);
  const run = spawnSync(process.execPath, [...process.execArgv, projectBin, ...args], { stdio: 'inherit' });
  if (run.error) console.error(`${manifest.name}: ${projectBin}: ${run.error.message}`);
  process.exit(run.status ?? 1);
}
const flag = (name) => args.includes(`--${name}`);
const budget = (arg) => Number(arg.slice('--seconds='.length));
const known = (arg) =>
  /^--(require-native|bench|no-bench|quick|json|help)$/.test(arg) ||
  (arg.startsWith('--seconds=') && budget(arg) > 0 && budget(arg) < Number.POSITIVE_INFINITY);
if (flag('help') || !args.every(known)) {
  const bad = args.find((arg) => !known(arg));
  const why = bad?.startsWith('--seconds') ? `${bad}: the budget is --seconds=S, S > 0` : `unknown option ${bad}`;
  (bad ? console.error : console.log)(bad ? `${why}\n\n${USAGE}` : USAGE);
  process.exit(bad ? 2 : 0);
}
const REQUIRE_NATIVE = flag('require-native');
const BENCH = flag('bench') || (!REQUIRE_NATIVE && !flag('no-bench'));
const SECONDS = flag('quick') ? 0.1 : budget(args.find((arg) => arg.startsWith('--seconds=')) ?? '--seconds=3');

const pkg = require('..');
const NATIVE = !['wasm', 'js'].includes(pkg.backend);

/** lib/tiers/native.js's `{ backend, file }`, or the error that lists every candidate it tried. */
function native() {
  try {
    return require('../lib/tiers/native.js');
  } catch (error) {
    return { error };
  }
}

/** The platform package npm would install here, as napi-rs names it. */
function platformPackage() {
  const { platform, arch } = process;
  const header = platform === 'linux' ? process.report?.getReport?.().header : undefined;
  const musl = header !== undefined && header.glibcVersionRuntime === undefined;
  const abi = platform === 'linux' ? (musl ? '-musl' : '-gnu') : platform === 'win32' ? (arch === 'x64' ? '-gnu' : '-msvc') : '';
  return `${manifest.name}-${platform}-${arch}${abi}`;
}

/** Why the addon did not load and what to do, or undefined when it did. */
function diagnose() {
  const level = require('../lib/level').requested;
  if (level === 'wasm' || level === 'js')
    return { reason: `BUFFERUTIL_SIMD_LEVEL=${level} asks for it`, fix: 'unset BUFFERUTIL_SIMD_LEVEL' };
  const { error, file } = native();
  if (!error) return NATIVE ? { file } : { reason: 'the addon loads, yet the package chose another tier', fix: 'report it' };
  const reason = String(error.message ?? error);
  // The loader's error has the code where a candidate reached dlopen; the flags say it where none did.
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (error.code === 'ERR_DLOPEN_DISABLED' || flags.includes('--no-addons')) {
    const permission = flags.some((arg) => /^--(experimental-)?permission$/.test(arg));
    return {
      reason,
      fix: permission ? 'add --allow-addons (the permission model turns addons off)' : 'run Node without --no-addons',
    };
  }
  const want = platformPackage();
  const offered = Object.keys(manifest.optionalDependencies ?? {});
  if (offered.length && !offered.includes(want))
    return { reason, fix: `no prebuilt addon for ${want.slice(manifest.name.length + 1)}` };
  // A clone, or a tarball packed from one: no platform packages to install.
  if (!offered.length) {
    const clone = fs.existsSync(path.join(__dirname, '..', 'Cargo.toml'));
    const packed = 'pack it as the release does: CONTRIBUTING.md, "Try a local build in an app"';
    return { reason, fix: clone ? 'build the addon: npm run build' : `this copy names no platform packages; ${packed}` };
  }
  const docs = `${String(manifest.homepage).replace(/#.*/, '')}/blob/main/docs/platforms.md#docker-and-cross-platform-installs`;
  return {
    reason,
    fix:
      `the addon comes in ${want}@${manifest.version}, an optional dependency: install on this platform with optional ` +
      `dependencies (no --omit=optional; not a node_modules or lockfile made on another OS or CPU), or add it: ` +
      `npm install ${want}@${manifest.version}. More: ${docs}`,
  };
}

/** `name`'s package.json as the project in the working directory resolves it, or undefined. */
function fromProject(name) {
  const req = createRequire(path.join(process.cwd(), 'noop.js'));
  try {
    const at = req.resolve(`${name}/package.json`);
    return { req, dir: path.dirname(at), ...JSON.parse(fs.readFileSync(at, 'utf8')) };
  } catch {}
}

/** Whether semver `version` is at least `than` (prereleases as their release). */
function atLeast(version, than) {
  const [a, b] = [version, than].map((v) => String(v).split(/[.-]/).slice(0, 3).map(Number));
  const i = a.findIndex((n, k) => n !== b[k]);
  return i < 0 || a[i] > b[i];
}

function cpuName() {
  try {
    const info = fs.readFileSync('/proc/cpuinfo', 'utf8');
    const field = (name) => info.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm'))?.[1];
    if (field('model name'))
      return `${field('model name')}${field('cpu family') ? ` (family ${field('cpu family')} model ${field('model')})` : ''}`;
  } catch {}
  return os.cpus()[0]?.model || `unknown ${process.arch} CPU`;
}

// ws's own loops (lib/buffer-util.js), what a caller without a native bufferutil runs.
function jsMask(source, mask, output, offset, length) {
  for (let i = 0; i < length; i++) output[offset + i] = source[i] ^ mask[i & 3];
}
function jsUnmask(buffer, mask) {
  for (let i = 0; i < buffer.length; i++) buffer[i] ^= mask[i & 3];
}

/**
 * Per op and size, each implementation at a call site of its own over 8 rotating inputs, timed in rounds
 * whose order rotates; ratios are the medians of per-round time ratios (above 1: this package is faster).
 */
function bench(impls) {
  const sizes = [64, 1024, 65536];
  const rounds = SECONDS < 0.5 ? 3 : 11;
  const slice = (SECONDS * 1e9) / (sizes.length * 2 * impls.length * rounds);
  const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
  const cells = ['mask', 'unmask'].flatMap((op) => sizes.map((size) => ({ op, size })));
  for (const cell of cells) {
    const { op, size } = cell;
    cell.inputs = Array.from({ length: 8 }, () => ({
      source: randomBytes(size),
      key: randomBytes(4),
      output: Buffer.alloc(size + 6),
    }));
    const call = op === 'mask' ? 'fn(x.source, x.key, x.output, 6, x.source.length)' : 'fn(x.source, x.key)';
    cell.sites = impls.map(({ id, [op]: fn }) => {
      const body = `for (let i = 0; i < n; i++) { const x = inputs[i & 7]; ${call}; }`;
      const site = new Function('fn', `return function ${op}_${id.replace(/\W/g, '_')}_${size}(inputs, n) { ${body} };`)(fn);
      let n = 1;
      let took = 0;
      while (took < slice / 4 && n < 2 ** 30) {
        n *= 2;
        const start = process.hrtime.bigint();
        site(cell.inputs, n);
        took = Number(process.hrtime.bigint() - start);
      }
      return { site, n: Math.max(1, Math.round((n * slice) / took)) };
    });
    // Correct before timed: the package against ws's loop.
    const { source, key } = cell.inputs[0];
    const [a, b] = [Buffer.alloc(size + 6), Buffer.alloc(size + 6)];
    pkg.mask(source, key, a, 6, size);
    jsMask(source, key, b, 6, size);
    if (!a.equals(b)) throw new Error(`bufferutil-simd masked ${size} B wrong`);
  }
  return cells.map(({ op, size, inputs, sites }) => {
    const ns = sites.map(() => []);
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < sites.length; k++) {
        const i = (r + k) % sites.length;
        const start = process.hrtime.bigint();
        sites[i].site(inputs, sites[i].n);
        ns[i].push(Number(process.hrtime.bigint() - start) / sites[i].n);
      }
    }
    const ratios = Object.fromEntries(impls.slice(1).map(({ id }, i) => [id, median(ns[i + 1].map((t, r) => t / ns[0][r]))]));
    return { op, size, ns: median([...ns[0]]), ratios };
  });
}

const found = diagnose();
const http = require('node:http');
const core = typeof http.websocketMask === 'function';
const ws = fromProject('ws');
const other = fromProject('bufferutil');
let bufferutil; // the real bufferutil's exports, where its addon loaded
if (other?.name === 'bufferutil') {
  try {
    const lib = other.req('bufferutil');
    if (lib.mask !== other.req('bufferutil/fallback').mask) bufferutil = lib;
  } catch {}
}
const install = `npm install bufferutil@npm:${manifest.name}@^${manifest.version}`;
const report = {
  package: { name: manifest.name, version: manifest.version, dir: path.join(__dirname, '..') },
  runtime: typeof Bun === 'undefined' ? `Node ${process.version}` : `Bun ${Bun.version}`,
  platform: `${process.platform}-${process.arch}`,
  cpu: cpuName(),
  backend: pkg.backend,
  native: NATIVE,
  addon: found.file ?? null,
  reason: found.reason ?? null,
  fix: found.fix ?? null,
  websocketMask: core,
  ws: ws ? { version: ws.version, bypasses: typeof Bun !== 'undefined' || (core && atLeast(ws.version, '8.22.1')) } : null,
  bufferutil: other ? { name: other.name, version: other.version, dir: other.dir, addon: Boolean(bufferutil) } : null,
};
// What the project's ws masks with here: core, this package, the original bufferutil, or its own loop.
if (report.ws) {
  if (report.ws.bypasses) report.ws.uses = typeof Bun === 'undefined' ? 'core' : 'bun';
  else if (process.env.WS_NO_BUFFER_UTIL) report.ws.uses = 'js';
  else if (other?.name === manifest.name) report.ws.uses = manifest.name;
  else report.ws.uses = bufferutil ? 'bufferutil' : 'js';
}
if (BENCH) {
  const impls = [
    { id: manifest.name, mask: pkg.mask, unmask: pkg.unmask },
    { id: 'js', mask: jsMask, unmask: jsUnmask },
    ...(bufferutil ? [{ id: 'bufferutil', mask: bufferutil.mask, unmask: bufferutil.unmask }] : []),
    ...(core ? [{ id: 'core', mask: http.websocketMask, unmask: http.websocketUnmask }] : []),
  ];
  report.bench = { seconds: SECONDS, cpu: report.cpu, results: bench(impls) };
}

if (flag('json')) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const out = [`${manifest.name} ${manifest.version} · ${report.runtime} · ${report.platform} · ${report.cpu}`];
  const row = (label, text) => out.push(`${label.padEnd(12)}${text}`);
  if (NATIVE) row('backend', `${pkg.backend}, the native addon: ${found.file}`);
  else row('backend', `${pkg.backend}, NO native addon\n  why: ${found.reason.replace(/\n/g, '\n  ')}\n  fix: ${found.fix}`);
  row(
    'core',
    core
      ? 'http.websocketMask: ws >= 8.22.1 uses it and never loads a bufferutil'
      : `no http.websocketMask in this ${typeof Bun === 'undefined' ? 'Node (from 26.12)' : 'runtime'}`
  );
  const wsUses = {
    core: 'uses Node core, never a bufferutil: this package helps only code that requires it itself',
    [manifest.name]: 'loads bufferutil: this package',
    bufferutil: `loads bufferutil ${other?.version}, not this package (to switch: ${install})`,
    js: process.env.WS_NO_BUFFER_UTIL
      ? 'skips bufferutil (WS_NO_BUFFER_UTIL is set): a JavaScript loop runs'
      : `finds no bufferutil addon: a JavaScript loop runs (to use this package: ${install})`,
  }[report.ws?.uses];
  if (typeof Bun !== 'undefined') row('ws', "Bun's built-in ws: it loads no bufferutil");
  else row('ws', ws ? `${ws.version} in this project: ${wsUses}` : 'none in this project');
  const named = other?.name === manifest.name ? `${manifest.name} ${other.version}` : `bufferutil ${other?.version}`;
  row('bufferutil', other ? `${named} in this project (${other.dir})` : 'none in this project');
  if (report.bench) {
    const names = Object.keys(report.bench.results[0].ratios);
    const heads = { js: "÷ ws's JS loop", bufferutil: `÷ bufferutil ${other?.version}`, core: '÷ websocketMask' };
    out.push(`\nSpeed-up of ${manifest.name} ${pkg.backend} on ${report.cpu} (above 1: faster)`);
    // Size, op and ns in narrow columns, each ratio in a wide one.
    const line = (cells) =>
      cells
        .map((cell, i) => cell.padEnd(i < 3 ? 9 : 20))
        .join('')
        .trimEnd();
    out.push(line(['size', 'op', 'ns/call', ...names.map((id) => heads[id])]));
    for (const { op, size, ns, ratios } of report.bench.results) {
      const cells = [
        size < 1024 ? `${size} B` : `${size / 1024} KiB`,
        op,
        ns.toFixed(1),
        ...names.map((id) => ratios[id].toFixed(2)),
      ];
      out.push(line(cells));
    }
    if (!bufferutil)
      out.push(
        other?.name === manifest.name
          ? "(the project's bufferutil is this package)"
          : '(no bufferutil addon in this project to compare with)'
      );
  }
  console.log(out.join('\n'));
}
if (REQUIRE_NATIVE && !NATIVE) {
  console.error(`${manifest.name}: --require-native: backend is ${pkg.backend}, not the native addon. ${found.fix}`);
  process.exit(1);
}
