'use strict';

// The JavaScript tier: lib/loops.js, routed by lib/route.js (`tier(from)`, as every tier module exports).

const { xorKeyWord } = require('./loops');
const { bytesTier } = require('./route');

module.exports = bytesTier('js', xorKeyWord);
