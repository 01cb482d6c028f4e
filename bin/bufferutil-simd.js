#!/usr/bin/env node
'use strict';

// `npx bufferutil-simd` (docs/check.md): on this runtime, what the package loads (or why not), what in the project's
// dependency tree loads it, and a benchmark on this CPU. The project's files are read as data; only its copy's entry runs.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { ROTATION, wsMask, wsUnmask, callSites, check, measure } = require('../lib/harness.js');

const USAGE = `Usage: npx bufferutil-simd [options]: what loads here and who calls it, and how fast it is on this CPU
  --require-native     exit 1 unless the native addon loaded (for CI and Dockerfiles); skips the benchmark
  --bench, --no-bench  run the benchmark even with --require-native, or skip it
  --seconds=S          benchmark budget in seconds, S > 0 (default 3); also --seconds S
  --quick              a tiny budget: proves the benchmark runs, timings meaningless
  --json               one JSON object on stdout
  -h, --help           this text (under Bun: bunx --bun bufferutil-simd; Deno: docs/check.md)`;

const NAME = path.basename(__filename, '.js'); // the package's name, as its command is named
const BUN = typeof Bun !== 'undefined';
const DENO = globalThis.Deno?.version?.deno;
const SELF = {}; // this copy's folder and package.json, read in main(), where a refused read is reported
/** A failure: its message is the one line printed, `status` the exit code; `printed` where --json's report has it. */
const failure = (message, status = 1, printed = false) => Object.assign(new Error(message), { status, printed });
/** What goes to a terminal: no control or format characters (escapes, line breaks, bidirectional overrides). */
const clean = (value) => String(value).replace(/[\p{Cc}\p{Cf}]/gu, '');
/** A manifest's value as text, read as data: nothing of it is called. */
const field = (value) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
// What the walk reads (docs/check.md): files up to FILE_BYTES, a package's sources up to PACKAGE_BYTES, for TREE_SECONDS.
const [FILE_BYTES, PACKAGE_BYTES, TREE_SECONDS] = [8 * 2 ** 20, 64 * 2 ** 20, 30];
const NOISY = 1.5; // a benchmark cell whose rounds' highest ratio exceeds their lowest by this factor
const SAMPLES = 5; // timed loops per implementation and round
/** `fn()`, or undefined where it throws (no such file, not JSON); a refused permission is never read as "none". */
function quiet(fn) {
  try {
    return fn();
  } catch (error) {
    if (error?.code === 'ERR_ACCESS_DENIED' || error?.name === 'NotCapable') throw error;
  }
}
/** A regular file's text if it holds at most `limit` bytes: never a device, FIFO or socket, whatever a link says. */
function readText(file, limit = FILE_BYTES) {
  const fd = quiet(() => fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0)));
  if (fd === undefined) return;
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > limit) return;
    const bytes = Buffer.alloc(stat.size);
    return bytes.toString('utf8', 0, fs.readSync(fd, bytes, 0, stat.size, 0));
  } finally {
    fs.closeSync(fd);
  }
}
const readJson = (file) => quiet(() => JSON.parse(readText(file)));
const inside = (dir, root) => !/^\.\.(?:[\\/]|$)|^[\\/]|^\w:/.test(path.relative(root, dir));

function options() {
  const flags = ['require-native', 'bench', 'no-bench', 'quick', 'json'].map((name) => [name, { type: 'boolean' }]);
  const refuse = (why) => failure(`${why}; --help lists the options`, 2);
  let values;
  try {
    const shape = { ...Object.fromEntries(flags), seconds: { type: 'string' }, help: { type: 'boolean', short: 'h' } };
    ({ values } = parseArgs({ options: shape }));
  } catch (error) {
    const unknown = error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && /'(-[^' ]*)/.exec(error.message)?.[1];
    throw refuse(unknown ? `unknown option ${unknown}` : error.message.split('\n')[0]);
  }
  const seconds = values.quick ? 0.1 : Number(values.seconds ?? 3);
  if (!(Number.isFinite(seconds) && seconds > 0)) throw refuse(`--seconds=${values.seconds}: the budget is S > 0`);
  const { 'require-native': requireNative, 'no-bench': noBench } = values;
  return { ...values, requireNative, seconds, bench: values.bench || !(requireNative || noBench) };
}

/** The project's package manager, from its layout or lockfile: the one whose way to pin every copy the report gives. */
function managerOf(root) {
  const has = (file) => quiet(() => fs.existsSync(path.join(root, file)));
  if (has('.pnp.cjs') || has('.pnp.data.json')) return 'yarn-pnp';
  const marks = { pnpm: ['node_modules/.pnpm', 'pnpm-lock.yaml'], deno: ['node_modules/.deno', 'deno.lock'] };
  Object.assign(marks, { yarn: ['yarn.lock'], bun: ['bun.lock', 'bun.lockb'], npm: ['package-lock.json'] });
  return Object.keys(marks).find((manager) => marks[manager].some(has)) ?? 'npm';
}

// Each package inside the project's node_modules (nested, scoped, pnpm's and Deno's stores; every folder once, by real path)
// whose code requires `bufferutil` by name, and what it uses here: this package, the original, core's http.websocketMask
// (code that looks for it, where it exists), Bun's own ws (Bun answers `require('ws')`), nothing (code reading
// WS_NO_BUFFER_UTIL, while set), or none found. Throws, with why, past TREE_SECONDS.
function consumers(root, core) {
  const [seen, found, requires] = [new Set(), [], /(?:require\s*\(|import\s*\(|from)\s*['"]bufferutil['"]/];
  const deadline = Date.now() + TREE_SECONDS * 1000;
  const list = (dir) => {
    if (Date.now() > deadline)
      throw new Error(`reading the tree took over ${TREE_SECONDS} s (${seen.size} folders): too big to list`);
    return quiet(() => fs.readdirSync(dir, { withFileTypes: true })) ?? [];
  };
  const once = (dir) => {
    const real = quiet(() => fs.realpathSync(dir));
    return real && inside(real, root) && !seen.has(real) && seen.add(real) && real;
  };
  const relative = (to) => path.relative(root, to).replaceAll(path.sep, '/');
  // The package's JavaScript files that require bufferutil (its own node_modules and links left out), up to PACKAGE_BYTES.
  const sources = (dir, texts, budget = { bytes: PACKAGE_BYTES }) => {
    for (const entry of list(dir)) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules') sources(file, texts, budget);
      else if (entry.isFile() && /\.[cm]?js$/.test(entry.name) && budget.bytes > 0) {
        const text = readText(file, Math.min(FILE_BYTES, budget.bytes)) ?? '';
        budget.bytes -= text.length;
        if (requires.test(text)) texts.push(text);
      }
    }
    return texts;
  };
  const add = (dir) => {
    const real = once(dir);
    const manifest = real && readJson(path.join(real, 'package.json'));
    if (!manifest) return;
    const [name, version] = [field(manifest.name), field(manifest.version)];
    const ours = name === 'bufferutil' || name === NAME || name.startsWith(`${NAME}-`);
    const texts = ours ? [] : sources(real, []);
    let lib; // the `bufferutil` its code gets by Node's lookup, looking no higher than the project
    for (let at = real; texts.length && !lib; at = path.dirname(at)) {
      const dir = path.join(at, 'node_modules', 'bufferutil');
      const json = path.basename(at) !== 'node_modules' && readJson(path.join(dir, 'package.json'));
      if (json) lib = { dir, name: json.name };
      if (at === root || at === path.dirname(at)) break;
    }
    let uses = lib ? (lib.name === NAME ? NAME : 'bufferutil') : 'none';
    if (BUN && name === 'ws') uses = 'bun';
    else if (core && texts.every((text) => text.includes('websocketMask'))) uses = 'core';
    else if (process.env.WS_NO_BUFFER_UTIL && texts.every((text) => text.includes('WS_NO_BUFFER_UTIL'))) uses = 'off';
    if (texts.length) found.push({ name, version, path: relative(real), uses, bufferutil: lib ? relative(lib.dir) : null });
    visit(path.join(real, 'node_modules'));
  };
  const visit = (modules) => {
    const real = once(modules);
    for (const { name } of real ? list(real) : []) {
      const dir = path.join(real, name);
      if (name === '.pnpm' || name === '.deno') for (const store of list(dir)) visit(path.join(dir, store.name, 'node_modules'));
      else if (name.startsWith('@')) for (const scoped of list(dir)) add(path.join(dir, scoped.name));
      else if (!name.startsWith('.')) add(dir);
    }
  };
  visit(path.join(root, 'node_modules'));
  return found;
}

/** `file` of the package in `dir` as `require` resolves it, required only where its real path lies inside `dir`. */
function confined(dir, file) {
  const resolved = require.resolve(path.resolve(dir, file));
  if (!inside(fs.realpathSync(resolved), fs.realpathSync(dir))) throw failure(`${dir}: ${file || 'its entry'} lies outside it`);
  return require(resolved);
}

// Per manager, the command that adds this package as `bufferutil`, and the package.json field that pins every copy to it.
const MANAGERS = {
  npm: ['npm install', 'overrides'],
  pnpm: ['pnpm add', 'pnpm.overrides'],
  yarn: ['yarn add', 'resolutions'],
  'yarn-pnp': ['yarn add', 'resolutions'],
  bun: ['bun add', 'overrides'],
  deno: ['deno add', 'overrides'],
};
const PNP = 'Yarn PnP keeps packages in zip archives, which this command does not open: `yarn why bufferutil` lists them';

/** How every caller comes to load this package under the project's manager, or null where nothing is left to switch. */
function switchFix({ manager, consumers: list, bufferutil: top, package: { version } }, project) {
  const [add, pin] = MANAGERS[manager] ?? [];
  const [spec, pinned] = [`npm:${NAME}@^${version}`, field(project?.[pin]?.bufferutil ?? project?.pnpm?.overrides?.bufferutil)];
  const pinning = `"${pin}": { "bufferutil": "${spec}" } in package.json, then reinstall`;
  const original = list?.filter((c) => c.uses === 'bufferutil' || c.uses === 'none') ?? [];
  if (!add || (list ? !original.length : pinned.includes(NAME))) return null;
  if (!list || top?.name === NAME) return pinning;
  const nested = original.some((c) => c.bufferutil && c.bufferutil !== 'node_modules/bufferutil');
  return `${add} bufferutil@${spec}${nested ? `, and ${pinning}` : ''}`;
}

/** Why the copy in `dir` runs without its addon and what to do, or `{ file }` where it loaded. */
function diagnose(dir, manifest, backend) {
  const level = quiet(() => confined(dir, 'lib/level.js').requested);
  if (/^(wasm|js)$/.test(level))
    return { reason: `BUFFERUTIL_SIMD_LEVEL=${level} asks for it`, fix: 'unset BUFFERUTIL_SIMD_LEVEL' };
  try {
    const { file } = confined(dir, 'lib/tiers/native.js');
    return /^(wasm|js)$/.test(backend) ? { reason: `the addon loads, yet ${backend} runs`, fix: 'report it' } : { file };
  } catch (error) {
    return { reason: String(error.message ?? error), fix: remedy(error, dir, manifest) };
  }
}

/** What to do where the addon did not load with `error`: the loader's fix, unless Node refuses addons or this is a clone. */
function remedy(error, dir, manifest) {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (error.code === 'ERR_DLOPEN_DISABLED' || flags.includes('--no-addons'))
    return flags.some((arg) => /^--(experimental-)?permission$/.test(arg))
      ? 'add --allow-addons (the permission model turns addons off)'
      : 'run Node without --no-addons';
  // A clone, or a tarball packed from one: no platform packages to install.
  if (fs.existsSync(path.join(dir, 'Cargo.toml'))) return 'build the addon: npm run build';
  if (!manifest.optionalDependencies)
    return 'this copy names no platform packages; pack it per CONTRIBUTING.md, "Try a local build in an app"';
  return error.fix;
}

function cpuName() {
  const info = (!DENO && quiet(() => fs.readFileSync('/proc/cpuinfo', 'utf8'))) || ''; // Deno opens /proc only to --allow-all
  const field = (name) => info.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm'))?.[1];
  const family = field('cpu family') ? ` (family ${field('cpu family')} model ${field('model')})` : '';
  return field('model name') ? `${field('model name')}${family}` : os.cpus()[0]?.model || `unknown ${process.arch} CPU`;
}

// The benchmark of lib/harness.js, each call site checked first, then timed in 3 or 11 rounds by a loop of n
// calls, n sized to a round's share of the budget, compiled per site and size as the harness compiles its call sites.
// Per op and size, this package's median ns and each other's time ÷ its own: the median and range over the rounds, noisy
// where the range is wider than NOISY.
async function bench(impls, seconds, rounds) {
  const sizes = [64, 1024, 65536];
  const slice = (seconds * 1e9) / (sizes.length * 2 * impls.length * rounds);
  const sites = callSites(['mask', 'unmask'], impls);
  const mismatch = check(sites, sizes);
  if (mismatch) throw new Error(mismatch);
  const clock = 'process.hrtime.bigint()';
  const body = `const start = ${clock}; for (let i = 0; i < n; i++) call(inputs[i & ${ROTATION - 1}]); return Number(${clock} - start);`;
  const timer = ({ call }, inputs) => {
    const timed = new Function('call', `return function ${call.name}_${inputs[0].length}(inputs, n) { ${body} };`)(call);
    let [n, took] = [2, timed(inputs, 2)];
    for (; took < slice / 4 && n < 2 ** 30; took = timed(inputs, n)) n *= 2;
    n = Math.max(1, Math.round((n * slice) / took / SAMPLES));
    timed(inputs, n * SAMPLES); // untimed, so that the timed loops run optimized code
    // A round: the fastest of SAMPLES loops, since time lost to other processes only ever adds.
    return () => Math.min(...Array.from({ length: SAMPLES }, () => timed(inputs, n))) / n;
  };
  const cells = await measure(sites, sizes, { rounds, timer, bases: impls.slice(1).map(({ id }) => id) });
  const each = (ratios, fn) => Object.fromEntries(Object.entries(ratios).map(([id, ratio]) => [id, fn(ratio)]));
  return cells.map(({ op, size, rows: [{ ns, ratios }] }) => {
    const noisy = Object.values(ratios).some(({ min, max }) => max > NOISY * min);
    return { op, size, ns, ratios: each(ratios, (r) => r.median), range: each(ratios, (r) => [r.min, r.max]), noisy };
  });
}

async function main(opts) {
  if (opts.help) return console.log(USAGE);
  const denied = DENO && ['read', 'env', 'sys', 'ffi'].filter((name) => Deno.permissions.querySync({ name }).state !== 'granted');
  if (denied?.length) throw failure(`Deno needs --allow-read --allow-env --allow-sys --allow-ffi (not granted: ${denied})`);
  // The project: the nearest folder at or above the working directory with a package.json, if any.
  const up = (at) => (quiet(() => fs.statSync(`${at}/package.json`)) ? at : path.dirname(at) !== at && up(path.dirname(at)));
  const root = up(fs.realpathSync(process.cwd()));
  Object.assign(SELF, { dir: fs.realpathSync(path.join(__dirname, '..')), manifest: require('../package.json') });
  // The project's copy, as `bufferutil` or by name, only where its own package.json names this package (else this one), and
  // its entry as that package.json names it, required only from inside it.
  const copies = ['bufferutil', NAME].map((name) => root && path.join(root, 'node_modules', name));
  const dir = copies.find((at) => at && readJson(path.join(at, 'package.json'))?.name === NAME);
  const copy = dir ? { dir: fs.realpathSync(dir), manifest: readJson(path.join(dir, 'package.json')) } : SELF;
  // Loaded without BUFFERUTIL_SIMD_REQUIRE_NATIVE (then the gate below) or the package's warning: the report says why.
  const required = process.env.BUFFERUTIL_SIMD_REQUIRE_NATIVE === '1' && delete process.env.BUFFERUTIL_SIMD_REQUIRE_NATIVE;
  const warn = process.emitWarning;
  process.emitWarning = (...args) => args[1]?.code === 'BUFFERUTIL_SIMD_NO_ADDON' || warn.apply(process, args);
  const pkg = confined(copy.dir, '');
  const found = diagnose(copy.dir, copy.manifest, pkg.backend);
  const http = require('node:http');
  const core = typeof http.websocketMask === 'function';
  const top = root && readJson(path.join(root, 'node_modules', 'bufferutil', 'package.json'));
  const manager = root ? managerOf(root) : null;
  let [list, unlisted] = [[], manager === 'yarn-pnp' ? PNP : null];
  try {
    if (root && !unlisted) list = consumers(root, core);
  } catch (error) {
    unlisted = String(error.message); // --require-native still answers for the addon
  }
  const report = {
    package: { name: NAME, version: field(copy.manifest.version), dir: copy.dir },
    runtime: DENO ? `Deno ${DENO}` : BUN ? `Bun ${Bun.version}` : `Node ${process.version}`,
    launcher: !BUN && /^bun\//.test(process.env.npm_config_user_agent ?? '') ? 'bun' : null,
    platform: `${process.platform}-${process.arch}`,
    cpu: cpuName(),
    backend: pkg.backend,
    native: Boolean(found.file),
    addon: found.file ?? null,
    reason: found.reason ?? null,
    fix: found.fix ?? null,
    websocketMask: core,
    project: root || null,
    manager,
    consumers: unlisted ? null : list,
    unlisted,
    switch: null,
    bufferutil: top ? { name: field(top.name), version: field(top.version), path: 'node_modules/bufferutil' } : null,
  };
  report.switch = switchFix(report, readJson(path.join(root || '.', 'package.json')));
  if (opts.bench) {
    // The project's original bufferutil where its addon loads (not its JavaScript fallback); never under --require-native.
    const original = opts.requireNative || top?.name !== 'bufferutil' ? [] : ['', 'fallback.js'];
    const [lib, js] = original.map((file) => quiet(() => confined(path.join(root, 'node_modules/bufferutil'), file)));
    const core = http.websocketMask && { mask: http.websocketMask, unmask: http.websocketUnmask };
    const libs = { [NAME]: pkg, js: { mask: wsMask, unmask: wsUnmask }, bufferutil: lib?.mask !== js?.mask && lib, core };
    const impls = Object.entries(libs).flatMap(([id, impl]) => (impl ? [{ id, mask: impl.mask, unmask: impl.unmask }] : []));
    try {
      const rounds = opts.seconds < 0.5 ? 3 : 11;
      report.bench = { seconds: opts.seconds, rounds, cpu: report.cpu, results: await bench(impls, opts.seconds, rounds) };
    } catch (error) {
      if (!(error instanceof EvalError)) throw error;
      report.bench = { skipped: 'code generation from strings is disallowed here, and the benchmark generates its call sites' };
    }
  }
  const gate = opts.requireNative ? '--require-native' : required && 'BUFFERUTIL_SIMD_REQUIRE_NATIVE=1';
  if (gate && !report.native) report.error = `${NAME}: ${gate}: backend is ${pkg.backend}, not the native addon. ${found.fix}`;
  console.log(opts.json ? JSON.stringify(report, null, 2) : text(report).map(clean).join('\n'));
  if (report.error) throw failure(report.error.slice(NAME.length + 2), 1, true);
}

/** The report as lines, none with a line break of its own: `clean` strips any a value brought. */
function text(report) {
  const { package: copy, consumers: list, bufferutil: top } = report;
  const whose = copy.dir === SELF.dir ? '' : ` (the project's copy: ${copy.dir})`;
  const out = [`${NAME} ${copy.version}${whose} · ${report.runtime} · ${report.platform} · ${report.cpu}`];
  const row = (label, line) => out.push(`${label.padEnd(12)}${line}`);
  if (report.launcher) row('runtime', "bunx ran this in Node: this is Node's answer; for Bun's, bunx --bun bufferutil-simd");
  row('backend', `${report.backend}, ${report.native ? `the native addon: ${report.addon}` : 'NO native addon'}`);
  if (!report.native)
    out.push(...report.reason.split('\n').map((line, i) => `  ${i ? '' : 'why: '}${line}`), `  fix: ${report.fix}`);
  row('core', report.websocketMask ? 'http.websocketMask: ws >= 8.22.1 uses it' : 'no http.websocketMask (Node 26.12+ has it)');
  const verdicts = {
    [NAME]: 'loads this package',
    bufferutil: 'loads the original bufferutil, not this package',
    core: "uses core's http.websocketMask, never a bufferutil",
    bun: "Bun's built-in ws stands in for it: no bufferutil loads",
    off: 'skips bufferutil: WS_NO_BUFFER_UTIL is set',
    none: 'finds no bufferutil',
  };
  const calling = `${list?.filter((c) => c.uses === NAME).length} of ${list?.length} that require bufferutil load this package:`;
  const nobody = 'no package here requires bufferutil: this package helps only code that requires it';
  row('callers', report.unlisted ? `not listed: ${report.unlisted}` : list.length ? calling : nobody);
  for (const { name, version, path: at, uses } of list ?? []) out.push(`  ${name} ${version} (${at}): ${verdicts[uses]}`);
  if (report.switch) out.push(`  to switch every caller (${report.manager}): ${report.switch}`);
  if (report.bench?.skipped) out.push('', `No benchmark: ${report.bench.skipped}`);
  if (!report.bench?.results) return out;
  const names = Object.keys(report.bench.results[0].ratios);
  const heads = { js: "÷ ws's JS loop", bufferutil: `÷ bufferutil ${top?.version}`, core: '÷ websocketMask' };
  out.push('', `Speed-up of ${NAME} ${report.backend} on ${report.cpu} (above 1: faster)`);
  const line = (cells) => cells.reduce((text, cell, i) => text + cell.padEnd(i < 3 ? 9 : 24), '').trimEnd();
  out.push(line(['size', 'op', 'ns/call', ...names.map((id) => heads[id])]));
  const cell = (ratio, [min, max]) => `${ratio.toFixed(2)} (${min.toFixed(2)}-${max.toFixed(2)})`;
  for (const { op, size, ns, ratios, range } of report.bench.results) {
    const ratioCells = names.map((id) => cell(ratios[id], range[id]));
    out.push(line([size < 1024 ? `${size} B` : `${size / 1024} KiB`, op, ns.toFixed(1), ...ratioCells]));
  }
  const noisy = report.bench.results.filter((result) => result.noisy).length;
  out.push(`Median of ${report.bench.rounds} rounds (lowest-highest).`);
  if (noisy) out.push(`noisy, rerun: in ${noisy} cells the rounds differ by over ${NOISY}x (a busy machine); try --seconds=10`);
  return out;
}

(async () => main(options()))().catch((error) => {
  // One line on stderr and, with --json, an object with `error` on stdout.
  const denied = error?.code === 'ERR_ACCESS_DENIED' ? ` (${error.permission}: ${error.resource})` : '';
  const why = (error?.syscall === 'uv_cwd' && 'the working directory no longer exists') || error?.message;
  const line = clean(`${NAME}: ${String(why ?? error).split('\n')[0]}${denied}`);
  if (process.argv.includes('--json') && !error?.printed) console.log(JSON.stringify({ error: line }, null, 2));
  console.error(line);
  process.exitCode = error?.status ?? 1;
});
