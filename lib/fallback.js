'use strict';

// The JavaScript kernel: lib/loops.js, in the shape of every tier's kernel (lib/route.js).

const { xorKeyWord } = require('./loops');
const { bytesKernel } = require('./route');

module.exports = { backend: 'js', ...bytesKernel(xorKeyWord) };
