'use strict';

// The JavaScript tier: lib/loops.js at every size.

const { isPlainMask, isByteKey, typedArrayLength, writable } = require('./checks');
const { xorKey, xorKeyWord } = require('./loops');
const { tier } = require('./tier');

module.exports = tier({
  backend: 'js',
  fastMask(source, key, output, offset, length) {
    if (!(isPlainMask(source, key, output, offset, length) && writable(output, offset))) return false;
    xorKey(source, output, offset, length, key[0], key[1], key[2], key[3]);
    return true;
  },
  fastUnmask(buffer, key, bytes) {
    if (!(bytes && isByteKey(key) && writable(buffer, 0))) return false;
    xorKey(buffer, buffer, 0, typedArrayLength(buffer), key[0], key[1], key[2], key[3]);
    return true;
  },
  checkedXor(_source, _output, offset, length, word, src, out) {
    xorKeyWord(src, out, offset, length, word);
  },
});
