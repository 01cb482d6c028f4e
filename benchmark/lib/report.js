'use strict';

// The JSON the benchmarks save: small enough to commit and to diff. One line per top-level field, and one
// line per row of the row lists (results, per-round samples), instead of one line per number.

const fs = require('fs');
const path = require('path');

/** `report` as JSON text: each top-level field on a line, each element of the `rowKeys` arrays on a line. */
function compactJson(report, rowKeys = ['results']) {
  const entries = Object.entries(report).filter(([, value]) => value !== undefined);
  const lines = ['{'];
  entries.forEach(([key, value], index) => {
    const comma = index < entries.length - 1 ? ',' : '';
    if (Array.isArray(value) && rowKeys.includes(key) && value.length > 0) {
      lines.push(` ${JSON.stringify(key)}: [`);
      value.forEach((row, j) => lines.push(`  ${JSON.stringify(row)}${j < value.length - 1 ? ',' : ''}`));
      lines.push(` ]${comma}`);
    } else {
      lines.push(` ${JSON.stringify(key)}: ${JSON.stringify(value)}${comma}`);
    }
  });
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

function writeCompactJson(file, report, rowKeys) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, compactJson(report, rowKeys));
}

/** `n` to `digits` significant digits, as a number (for figures whose later digits are noise). */
function round(n, digits = 4) {
  return typeof n === 'number' && Number.isFinite(n) ? Number(n.toPrecision(digits)) : n;
}

module.exports = { compactJson, writeCompactJson, round };
