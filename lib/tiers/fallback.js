'use strict';

// The JavaScript tier: lib/loops.js, routed by lib/route.js.

const { xorKeyWord } = require('../loops');
const { routeBytes } = require('../route');

module.exports = { backend: 'js', tier: (from) => routeBytes('js', from, xorKeyWord) };
