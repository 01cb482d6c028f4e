'use strict';

// The JavaScript tier: lib/loops.js at every size.

const { xorKey } = require('./loops');
const { bytesTier } = require('./tier');

module.exports = bytesTier({ backend: 'js', xor: xorKey });
