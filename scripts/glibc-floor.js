'use strict';

// `node scripts/glibc-floor.js DIR`: the oldest glibc each linux-gnu addon in DIR/artifacts/ (pack-platforms.js's) loads
// on; fails if that is above scripts/targets.js's GLIBC, which the release links against, or docs/platforms.md's differs.

const fs = require('node:fs');
const path = require('node:path');
const { GLIBC } = require('./targets');

/** Versions (`2.17`) in order, numbers compared as numbers. */
const byVersion = (a, b) => a.localeCompare(b, 'en', { numeric: true });

/** The highest glibc version `file` needs, as `2.14`, or undefined: the highest `GLIBC_x.y` ending any of its strings,
 * among them the dynamic string table's symbol version names (over-reports, never misses one). */
function glibcFloor(file) {
  const versions = [...fs.readFileSync(file, 'latin1').matchAll(/GLIBC_(\d+(?:\.\d+)+)(?=\0)/g)].map(([, version]) => version);
  return versions.sort(byVersion).at(-1);
}

if (process.argv.length !== 3) throw new Error('usage: node scripts/glibc-floor.js DIR (pack-platforms.js --out DIR)');
const dir = path.join(process.argv[2], 'artifacts');
const names = fs.readdirSync(dir).filter((name) => /\.linux-.+-gnu\.node$/.test(name));
const addons = names.map((name) => path.join(dir, name));
const failures = [];
const platforms = fs.readFileSync(path.join(__dirname, '..', 'docs', 'platforms.md'), 'utf8');
const claims = [...new Set([...platforms.matchAll(/glibc (\d+\.\d+)/g)].map(([, version]) => version))];
if (claims.length !== 1 || claims[0] !== GLIBC)
  failures.push(`docs/platforms.md states glibc ${claims.join(', ') || 'nothing'}; scripts/targets.js links against ${GLIBC}`);
if (!addons.length) failures.push(`no linux-gnu addon (*.linux-*-gnu.node) in ${dir}`);
for (const file of addons) {
  const floor = glibcFloor(file);
  console.log(`glibc floor: ${path.basename(file)} needs glibc ${floor ?? '(none)'}; the claim is ${GLIBC}`);
  if (floor === undefined || byVersion(floor, GLIBC) > 0)
    failures.push(`${file} needs glibc ${floor}, above the ${GLIBC} claimed`);
}
for (const failure of failures) console.error(`glibc floor: FAILED: ${failure}`);
if (failures.length) process.exitCode = 1;
