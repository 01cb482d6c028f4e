'use strict';

// The oldest glibc a linux-gnu addon loads on: the highest `GLIBC_x.y` version its dynamic symbols need
// (its ELF version-needed entries, read here, so no binutils is needed). Fails if that is above
// scripts/targets.js's GLIBC, the version the release links against, or if docs/platforms.md states
// another floor.
//
//   node scripts/glibc-floor.js DIR|FILE...   every *-gnu.node among them (DIR: its artifacts/ too)

const fs = require('node:fs');
const path = require('node:path');
const { GLIBC } = require('./targets');

const SHT_GNU_VERNEED = 0x6ffffffe;

/** The version names (`GLIBC_2.14`, `GCC_3.0`…) an ELF64 little-endian file needs from its libraries. */
function neededVersions(file) {
  const elf = fs.readFileSync(file);
  if (elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2 || elf[5] !== 1) {
    throw new Error(`${file}: not a 64-bit little-endian ELF file`);
  }
  const [shoff, shentsize, shnum] = [Number(elf.readBigUInt64LE(0x28)), elf.readUInt16LE(0x3a), elf.readUInt16LE(0x3c)];
  const section = (i) => {
    const at = shoff + i * shentsize;
    return { type: elf.readUInt32LE(at + 4), offset: Number(elf.readBigUInt64LE(at + 0x18)), link: elf.readUInt32LE(at + 0x28) };
  };
  const names = [];
  for (let i = 0; i < shnum; i++) {
    const verneed = section(i);
    if (verneed.type !== SHT_GNU_VERNEED) continue;
    const strings = section(verneed.link).offset;
    const string = (at) => elf.toString('latin1', strings + at, elf.indexOf(0, strings + at));
    // Elf64_Verneed { vn_version u16, vn_cnt u16, vn_file u32, vn_aux u32, vn_next u32 }, each followed
    // (at vn_aux) by vn_cnt Elf64_Vernaux { vna_hash u32, vna_flags u16, vna_other u16, vna_name u32, vna_next u32 }.
    for (let need = verneed.offset, more = true; more; ) {
      let aux = need + elf.readUInt32LE(need + 8);
      for (let n = elf.readUInt16LE(need + 2); n > 0; n--) {
        names.push(string(elf.readUInt32LE(aux + 8)));
        aux += elf.readUInt32LE(aux + 12);
      }
      more = elf.readUInt32LE(need + 12) !== 0;
      need += elf.readUInt32LE(need + 12);
    }
  }
  return names;
}

/** Whether version `a` (`2.17`) is above `b`: numbers compared as numbers. */
const newer = (a, b) => a.localeCompare(b, 'en', { numeric: true }) > 0;

/** The highest glibc version `file` needs, as `2.14`; undefined if it needs none. */
function glibcFloor(file) {
  return neededVersions(file)
    .filter((name) => /^GLIBC_\d+(\.\d+)*$/.test(name))
    .map((name) => name.slice('GLIBC_'.length))
    .reduce((max, version) => (max === undefined || newer(version, max) ? version : max), undefined);
}

/** The glibc versions docs/platforms.md states the gnu builds need ("glibc 2.17"). */
function claimedFloors() {
  const text = fs.readFileSync(path.join(__dirname, '..', 'docs', 'platforms.md'), 'utf8');
  return [...new Set([...text.matchAll(/glibc (\d+\.\d+)/g)].map(([, version]) => version))];
}

module.exports = { neededVersions, glibcFloor, claimedFloors };

if (require.main === module) {
  const files = process.argv.slice(2).flatMap((arg) => {
    if (!fs.statSync(arg).isDirectory()) return [arg];
    return [arg, path.join(arg, 'artifacts')]
      .filter((dir) => fs.existsSync(dir))
      .flatMap((dir) => fs.readdirSync(dir).map((name) => path.join(dir, name)));
  });
  const addons = files.filter((file) => /-gnu\.node$/.test(file) && !/win32/.test(path.basename(file)));
  const failures = [];
  const claims = claimedFloors();
  if (claims.length !== 1 || claims[0] !== GLIBC) {
    failures.push(`docs/platforms.md states glibc ${claims.join(', ') || 'nothing'}; scripts/targets.js links against ${GLIBC}`);
  }
  if (!addons.length) failures.push(`no linux-gnu addon (*-gnu.node) in ${process.argv.slice(2).join(' ')}`);
  for (const file of addons) {
    const floor = glibcFloor(file);
    console.log(`glibc floor: ${path.basename(file)} needs glibc ${floor ?? '(none)'} (GLIBC_${floor}); the claim is ${GLIBC}`);
    if (floor === undefined || newer(floor, GLIBC)) failures.push(`${file} needs glibc ${floor}, above the ${GLIBC} claimed`);
  }
  for (const failure of failures) console.error(`glibc floor: FAILED: ${failure}`);
  if (failures.length) process.exitCode = 1;
}
