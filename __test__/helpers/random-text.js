'use strict';

const crypto = require('node:crypto');

/** `byteLength` bytes of random UTF-8: random code points of 1 to 4 bytes, ASCII to fill the end exactly. */
function randomText(byteLength) {
  let text = '';
  let left = byteLength;
  const picks = [
    [1, 0x20, 0x7f],
    [2, 0x80, 0x800],
    [3, 0x800, 0xd800],
    [4, 0x10000, 0x110000],
  ];
  while (left > 0) {
    const [bytes, from, to] = picks[crypto.randomInt(picks.length)];
    if (bytes > left) {
      text += String.fromCharCode(crypto.randomInt(0x20, 0x7f));
      left -= 1;
    } else {
      text += String.fromCodePoint(crypto.randomInt(from, to));
      left -= bytes;
    }
  }
  return text;
}

module.exports = { randomText };
