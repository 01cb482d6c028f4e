'use strict';

// The JavaScript tier: lib/loops.js, routed by lib/route.js.

const { xorKeyWord } = require('../loops');
const { bytesTier } = require('../route');

module.exports = bytesTier('js', xorKeyWord);
