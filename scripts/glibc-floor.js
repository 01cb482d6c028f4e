'use strict';

// `node scripts/glibc-floor.js DIR|FILE...`: the oldest glibc each linux-gnu addon among them (DIR: its
// artifacts/ too) loads on. Fails if that is above scripts/targets.js's GLIBC, the version the release links
// against, or if docs/platforms.md states another floor.

const fs = require('node:fs');
const path = require('node:path');
const { GLIBC } = require('./targets');

/** Whether version `a` (`2.17`) is above `b`: numbers compared as numbers. */
const newer = (a, b) => a.localeCompare(b, 'en', { numeric: true }) > 0;

/**
 * The highest glibc version `file` needs, as `2.14`: the highest `GLIBC_x.y` ending any of its NUL-terminated
 * strings, among them the dynamic string table's symbol version names (over-reports, never misses one).
 * Undefined if it needs none.
 */
const glibcFloor = (file) =>
  [...fs.readFileSync(file, 'latin1').matchAll(/GLIBC_(\d+(?:\.\d+)+)(?=\0)/g)]
    .map(([, version]) => version)
    .reduce((max, version) => (max === undefined || newer(version, max) ? version : max), undefined);

const args = process.argv.slice(2);
const list = (dir) => (fs.existsSync(dir) ? fs.readdirSync(dir).map((name) => path.join(dir, name)) : []);
const files = args.flatMap((arg) => (fs.statSync(arg).isDirectory() ? [arg, path.join(arg, 'artifacts')].flatMap(list) : [arg]));
const addons = files.filter((file) => /-gnu\.node$/.test(file) && !/win32/.test(path.basename(file)));
const failures = [];
const platforms = fs.readFileSync(path.join(__dirname, '..', 'docs', 'platforms.md'), 'utf8');
const claims = [...new Set([...platforms.matchAll(/glibc (\d+\.\d+)/g)].map(([, version]) => version))];
if (claims.length !== 1 || claims[0] !== GLIBC)
  failures.push(`docs/platforms.md states glibc ${claims.join(', ') || 'nothing'}; scripts/targets.js links against ${GLIBC}`);
if (!addons.length) failures.push(`no linux-gnu addon (*-gnu.node) in ${args.join(' ')}`);
for (const file of addons) {
  const floor = glibcFloor(file);
  console.log(`glibc floor: ${path.basename(file)} needs glibc ${floor ?? '(none)'}; the claim is ${GLIBC}`);
  if (floor === undefined || newer(floor, GLIBC)) failures.push(`${file} needs glibc ${floor}, above the ${GLIBC} claimed`);
}
for (const failure of failures) console.error(`glibc floor: FAILED: ${failure}`);
if (failures.length) process.exitCode = 1;
