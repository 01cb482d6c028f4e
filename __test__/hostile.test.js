'use strict';

// The safety promise (docs/safety.md): every argument of mask and unmask against every hostile class, on
// every implementation, each in child processes so that an abort fails one case. A case passes when each
// gives an outcome it accepts, every byte of every backing buffer is as the oracle leaves it (untouched
// when it throws), and the implementations agree, to the words of their error messages.

const { test } = require('node:test');
const assert = require('node:assert');
const { accepted, cases, label, runMatrix, table } = require('./helpers/hostile-matrix');

const { NAMES: IMPLEMENTATIONS } = require('./helpers/implementations');

const matrix = Promise.all(IMPLEMENTATIONS.map((name) => runMatrix(name))).then((columns) => {
  const rows = cases.map((testCase, index) => {
    const labels = columns.map((results) => label(results[index]));
    const skip = columns[0][index]?.outcome?.kind === 'skip' ? columns[0][index].outcome.reason : undefined;
    if (skip !== undefined) return { testCase, labels, problems: [], skip };
    const problems = IMPLEMENTATIONS.filter((name, column) => !accepted(index, columns[column][index])).map(
      (name) => `${name} unexpected`
    );
    if (new Set(labels.filter((text) => text !== 'n/a')).size > 1) problems.push('implementations disagree');
    const messages = new Set(columns.map((results) => results[index]?.outcome?.message).filter((text) => text !== undefined));
    if (messages.size > 1) problems.push(`messages differ: ${[...messages].map((text) => JSON.stringify(text)).join(' / ')}`);
    return { testCase, labels, problems };
  });
  const header = ['case', ...IMPLEMENTATIONS, 'expected', 'verdict'];
  const body = rows.map(({ testCase, labels, problems, skip }) => [
    testCase.name,
    ...labels,
    testCase.accepts.join(' or '),
    skip ? `skipped: ${skip}` : problems.length === 0 ? 'pass' : `FAIL: ${problems.join(', ')}`,
  ]);
  const failed = rows.filter((row) => row.problems.length > 0).length;
  const skipped = rows.filter((row) => row.skip).length;
  process.stdout.write(`${table([header, ...body])}\n${rows.length} cases, ${failed} failing, ${skipped} skipped\n`);
  return rows;
});

test('hostile-input matrix', async (t) => {
  const rows = await matrix;
  for (const { testCase, labels, problems, skip } of rows) {
    await t.test(testCase.name, { skip }, () => {
      const got = IMPLEMENTATIONS.map((name, column) => `${name}: ${labels[column]}`).join('; ');
      assert.deepStrictEqual(problems, [], `${got}; expected ${testCase.accepts.join(' or ')}`);
    });
  }
});
