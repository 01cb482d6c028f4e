'use strict';

// What `require('bufferutil')` returns inside an e2e.js child: the implementation under test
// (E2E_BUFFERUTIL_TARGET, an absolute path), with every call counted, so the run proves ws used it.

const target = process.env.E2E_BUFFERUTIL_TARGET;
const implementation = require(target);

const counts = { mask: 0, maskBytes: 0, unmask: 0, unmaskBytes: 0 };

module.exports = {
  mask(source, mask, output, offset, length) {
    counts.mask++;
    counts.maskBytes += length;
    implementation.mask(source, mask, output, offset, length);
  },
  unmask(buffer, mask) {
    counts.unmask++;
    counts.unmaskBytes += buffer.length;
    implementation.unmask(buffer, mask);
  },
  counts,
  target,
  backend: implementation.backend,
};
