'use strict';

// What `require('bufferutil')` returns in an e2e.js child: the implementation under test
// (E2E_BUFFERUTIL_TARGET, an absolute path), counting the bytes it masks and unmasks, so that the run
// proves the consumer used it.

const path = require('node:path');

const target = process.env.E2E_BUFFERUTIL_TARGET;
const implementation = require(target);
const { name, version } = require(path.join(path.dirname(target), 'package.json'));
const counts = { mask: 0, unmask: 0 };

module.exports = {
  mask(source, mask, output, offset, length) {
    counts.mask += length;
    implementation.mask(source, mask, output, offset, length);
  },
  unmask(buffer, mask) {
    counts.unmask += buffer.length;
    implementation.unmask(buffer, mask);
  },
  counts,
  label: `${name} ${version}${implementation.backend ? ` (${implementation.backend})` : ''}`,
};
