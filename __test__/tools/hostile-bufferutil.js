'use strict';

// The hostile matrix against bufferutil 4.1.0 (its prebuilt addon), beside bufferutil-simd's native addon,
// for comparison: bufferutil checks nothing, so aborts and stray writes are expected and fail nothing.
// `node __test__/tools/hostile-bufferutil.js` prints the table (docs/safety.md has its summary).

const path = require('node:path');
const { accepted, cases, label, runMatrix, table } = require('../helpers/hostile-matrix');

async function main() {
  const version = require(require.resolve('bufferutil/package.json', { paths: [path.join(__dirname, '..', '..')] })).version;
  const [ours, theirs] = await Promise.all([runMatrix('native'), runMatrix('bufferutil')]);
  const tally = { 'as expected': 0, crash: 0, 'stray writes': 0, 'accepted bad input': 0, 'other error': 0 };
  // bufferutil has no addon entries.
  const compared = cases.map((testCase, index) => [testCase, index]).filter(([testCase]) => !testCase.fn.startsWith('addon.'));
  const rows = compared.map(([testCase, index]) => {
    const result = theirs[index];
    let verdict;
    if (accepted(index, result)) verdict = 'as expected';
    else if (result?.death) verdict = 'crash';
    else if (result.wrong > 0) verdict = 'stray writes';
    else if (result.outcome.kind === 'ok') verdict = 'accepted bad input';
    else verdict = 'other error';
    tally[verdict]++;
    return [testCase.name, label(ours[index]), label(result), testCase.accepts.join(' or '), verdict];
  });
  const summary = Object.entries(tally)
    .map(([what, count]) => `${what}: ${count}`)
    .join(', ');
  const report = [
    `Hostile-input matrix: bufferutil-simd native vs bufferutil ${version} (${process.platform}-${process.arch}, Node ${process.version})`,
    `Cells: ok | Error:argument named | user (a user getter's error) | CRASH signal | +N WRONG BYTES / +WROTE N B (vs the byte-loop oracle, or vs nothing written when it threw)`,
    '',
    table([['case', 'bufferutil-simd', `bufferutil ${version}`, 'expected', 'bufferutil verdict'], ...rows]),
    '',
    `${rows.length} cases. bufferutil ${version}: ${summary}`,
  ].join('\n');
  process.stdout.write(`${report}\n`);
}

main();
