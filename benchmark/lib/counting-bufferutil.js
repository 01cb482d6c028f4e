'use strict';

// What `require('bufferutil')` returns in an e2e.js child: the implementation under test (E2E_BUFFERUTIL_TARGET),
// counting the bytes it masks and unmasks, so that the run proves the consumer used it.

const path = require('node:path');
const { counting } = require('./common');

const target = process.env.E2E_BUFFERUTIL_TARGET;
const implementation = require(target);
const { name, version } = require(path.join(path.dirname(target), 'package.json'));
const backend = implementation.backend ? ` (${implementation.backend})` : '';
module.exports = { ...counting(implementation), label: `${name} ${version}${backend}` };
