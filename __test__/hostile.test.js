'use strict';

// The safety promise (docs/safety.md): every argument of mask and unmask against every hostile class, on
// every implementation, each in child processes so that an abort fails one case. A case passes when each
// gives an outcome it accepts, every byte of every backing buffer is as the oracle leaves it (untouched
// when it throws), and the implementations agree, to the words of their error messages.

const { test } = require('node:test');
const assert = require('node:assert');
const { accepted, cases, label, runMatrix } = require('./helpers/hostile-matrix');
const { NAMES } = require('./helpers/implementations');

test('hostile-input matrix', async (t) => {
  const columns = await Promise.all(NAMES.map((name) => runMatrix(name)));
  for (const [index, { name, accepts }] of cases.entries()) {
    const results = columns.map((column) => column[index]);
    await t.test(name, { skip: results[0]?.outcome?.reason }, () => {
      const labels = results.map(label);
      const problems = NAMES.filter((_, i) => !accepted(index, results[i])).map((impl) => `${impl} unexpected`);
      if (new Set(labels.filter((text) => text !== 'n/a')).size > 1) problems.push('implementations disagree');
      const messages = new Set(results.map((result) => result?.outcome?.message).filter((text) => text !== undefined));
      if (messages.size > 1) problems.push(`messages differ: ${[...messages].map((text) => JSON.stringify(text)).join(' / ')}`);
      const got = NAMES.map((implementation, i) => `${implementation}: ${labels[i]}`).join('; ');
      assert.deepStrictEqual(problems, [], `${got}; expected ${accepts.join(' or ')}`);
    });
  }
});
