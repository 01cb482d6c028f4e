'use strict';

// The hostile matrix against bufferutil 4.1.0 (its prebuilt addon), beside bufferutil-simd's native addon,
// for comparison: bufferutil checks nothing, so aborts and stray writes are expected and fail nothing.
// `node __test__/tools/hostile-bufferutil.js` prints the table (docs/safety.md has its summary).

const path = require('node:path');
const { accepted, cases, label, runMatrix } = require('../helpers/hostile-matrix');

/** What bufferutil did with case `index`. */
function verdict(index, result) {
  if (accepted(index, result)) return 'as expected';
  if (result?.death) return 'crash';
  if (result.wrong > 0) return 'stray writes';
  return result.outcome.kind === 'ok' ? 'accepted bad input' : 'other error';
}

async function main() {
  const version = require(require.resolve('bufferutil/package.json', { paths: [path.join(__dirname, '..', '..')] })).version;
  const [ours, theirs] = await Promise.all([runMatrix('native'), runMatrix('bufferutil')]);
  const tally = { 'as expected': 0, crash: 0, 'stray writes': 0, 'accepted bad input': 0, 'other error': 0 };
  const rows = [['case', 'bufferutil-simd', `bufferutil ${version}`, 'expected', 'bufferutil verdict']];
  for (const [index, { name, fn, accepts }] of cases.entries()) {
    if (fn.startsWith('addon.') || label(theirs[index]) === 'skip') continue; // no addon entries; a skip ran nowhere
    const what = verdict(index, theirs[index]);
    tally[what]++;
    rows.push([name, label(ours[index]), label(theirs[index]), accepts.join(' or '), what]);
  }
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => String(row[column]).length)));
  const line = (row) => `| ${row.map((cell, column) => String(cell).padEnd(widths[column])).join(' | ')} |`;
  const table = [line(rows[0]), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.slice(1).map(line)];
  const summary = Object.entries(tally).map(([what, count]) => `${what}: ${count}`);
  process.stdout.write(`Hostile-input matrix: bufferutil-simd native vs bufferutil ${version} (${process.platform}-${process.arch}, Node ${process.version})
Cells: ok | Error:argument named | user (a user getter's error) | CRASH signal | +N WRONG BYTES / +WROTE N B (vs the byte-loop oracle, or vs nothing written when it threw)

${table.join('\n')}

${rows.length - 1} cases. bufferutil ${version}: ${summary.join(', ')}
`);
}

main();
