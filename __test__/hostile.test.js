'use strict';

// The safety promise (docs/safety.md): every argument of mask and unmask against every hostile class, on
// every implementation, each in child processes so that an abort fails one case. A case passes when each
// gives an outcome it accepts, every byte of every backing buffer is as the oracle leaves it (untouched
// when it throws), and the implementations agree, to the words of their error messages.

const { test } = require('node:test');
const assert = require('node:assert');
const { accepted, cases, label, runMatrix } = require('./helpers/hostile-matrix');

const { NAMES: IMPLEMENTATIONS } = require('./helpers/implementations');

const matrix = Promise.all(IMPLEMENTATIONS.map((name) => runMatrix(name))).then((columns) =>
  cases.map((testCase, index) => {
    const results = columns.map((column) => column[index]);
    const labels = results.map((result) => label(result));
    if (results[0]?.outcome?.kind === 'skip') return { testCase, labels, problems: [], skip: results[0].outcome.reason };
    const problems = IMPLEMENTATIONS.filter((name, i) => !accepted(index, results[i])).map((name) => `${name} unexpected`);
    if (new Set(labels.filter((text) => text !== 'n/a')).size > 1) problems.push('implementations disagree');
    const messages = new Set(results.map((result) => result?.outcome?.message).filter((text) => text !== undefined));
    if (messages.size > 1) problems.push(`messages differ: ${[...messages].map((text) => JSON.stringify(text)).join(' / ')}`);
    return { testCase, labels, problems };
  })
);

test('hostile-input matrix', async (t) => {
  const rows = await matrix;
  for (const { testCase, labels, problems, skip } of rows) {
    await t.test(testCase.name, { skip }, () => {
      const got = IMPLEMENTATIONS.map((name, column) => `${name}: ${labels[column]}`).join('; ');
      assert.deepStrictEqual(problems, [], `${got}; expected ${testCase.accepts.join(' or ')}`);
    });
  }
});
