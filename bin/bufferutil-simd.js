#!/usr/bin/env node
'use strict';

// `npx bufferutil-simd` (docs/check.md): on this runtime, what the package loads (or why not), what in the project's
// dependency tree loads it, and a benchmark on this CPU. The project's files are read as data (lib/project.js); what runs
// of it is its copy's entry, and only files inside their package (docs/check.md, "Which copy it judges").

const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { cpuInfo } = require('../lib/cpu.js');
const { readProject, readJson, quiet, field, inside } = require('../lib/project.js');
const { wsMask, wsUnmask, callSites, check, measure, loopTimer } = require('../lib/harness.js');

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
const NOISY = 1.5; // a benchmark cell whose rounds' highest ratio exceeds their lowest by this factor
const SAMPLES = 5; // timed loops per implementation and round

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

/** `file` of the package in `dir` as `require` resolves it, required only where its real path lies inside `dir`. */
function confined(dir, file) {
  const resolved = require.resolve(path.resolve(dir, file));
  if (!inside(fs.realpathSync(resolved), fs.realpathSync(dir))) throw failure(`${dir}: ${file || 'its entry'} lies outside it`);
  return require(resolved);
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

// The benchmark of lib/harness.js: each call site checked, then timed in `rounds` by its loop timer. Per op and size, this
// package's median ns and each other's time ÷ its own: the median and range over the rounds, noisy past NOISY.
async function bench(impls, seconds, rounds) {
  const sizes = [64, 1024, 65536];
  const sites = callSites(['mask', 'unmask'], impls);
  const mismatch = check(sites, sizes);
  if (mismatch) throw new Error(mismatch);
  const timer = loopTimer((seconds * 1e9) / (sizes.length * 2 * impls.length * rounds), SAMPLES);
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
  const version = field(copy.manifest.version);
  const tree = root ? readProject(root, { core, version, top }) : { manager: null, consumers: [], unlisted: null, switch: null };
  const report = {
    package: { name: NAME, version, dir: copy.dir },
    runtime: DENO ? `Deno ${DENO}` : BUN ? `Bun ${Bun.version}` : `Node ${process.version}`,
    launcher: !BUN && /^bun\//.test(process.env.npm_config_user_agent ?? '') ? 'bun' : null,
    platform: `${process.platform}-${process.arch}`,
    cpu: cpuInfo().name,
    backend: pkg.backend,
    native: Boolean(found.file),
    addon: found.file ?? null,
    reason: found.reason ?? null,
    fix: found.fix ?? null,
    websocketMask: core,
    project: root || null,
    ...tree,
    bufferutil: top ? { name: field(top.name), version: field(top.version), path: 'node_modules/bufferutil' } : null,
  };
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
