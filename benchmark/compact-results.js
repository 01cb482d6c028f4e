'use strict';

// Rewrites bench.js result files of schema 2 (every round's figure pretty-printed in every result, ~45,000
// lines a file) as schema 3: the same summaries, numbers untouched, one line per result, no per-round
// samples. The samples go to <name>.samples.json beside each file, which git ignores. Used once to shrink
// the committed results/bench-*.json without re-running them; bench.js --save writes schema 3 itself.
//
//   node benchmark/compact-results.js [results/bench-node20.json ...]   (default: every results/bench-*.json)

const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { writeCompactJson } = require('./lib/report');

const RESULTS = path.join(__dirname, 'results');
const files = process.argv.slice(2).length
  ? process.argv.slice(2)
  : fs.readdirSync(RESULTS).filter((name) => /^bench-[^.]+\.json$/.test(name)).map((name) => path.join(RESULTS, name));

for (const file of files) {
  const before = fs.statSync(file).size;
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (report.schema !== 2) {
    console.log(`${path.relative(process.cwd(), file)}: schema ${report.schema}, left alone`);
    continue;
  }
  const base = file.replace(/\.json$/, '');
  const samples = report.results.map(({ view, case: caseId, size, impl, roundsNs }) => ({ view, case: caseId, size, impl, roundsNs }));
  const results = report.results.map(({ roundsNs, ...rest }) => rest);
  // Field order as bench.js writes schema 3: `samples` just before `results`.
  const { results: _, ...head } = report;
  const compact = {
    ...head,
    schema: 3,
    samples: `${path.basename(base)}.samples.json (every round's ns per call; kept locally, not committed; ` +
      'this file was rewritten from schema 2, the per-round figures are in its git history)',
    results,
  };
  writeCompactJson(`${base}.samples.json`, { runtime: report.runtime, date: report.date, source: report.source, samples }, ['samples']);
  writeCompactJson(file, compact);
  // The summaries must come back exactly as they were.
  const reread = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.deepStrictEqual({ ...reread, schema: 2, samples: undefined }, { ...report, results, samples: undefined });
  console.log(`${path.relative(process.cwd(), file)}: ${before} → ${fs.statSync(file).size} bytes`);
}
