'use strict';

// The calls docs/implementers.md tells a WebSocket stack with its own loop to make, as that stack would make them:
// undici's (an Array key of 4 numbers, a Buffer.allocUnsafe frame, maybe pool-backed, the payload after a header of
// 6, 8 or 14 bytes; in place for createFastTextFrame) and websocket-driver's (in place from an offset, a Buffer key
// with bytes after the 4), at every payload size where the frame header changes. No third-party code runs here;
// benchmark/e2e.js runs undici itself with its loops routed through the package, by hand.

const assert = require('node:assert');
const crypto = require('node:crypto');
const { it } = require('node:test');

const { NAMES, load } = require('./helpers/implementations');
const { assertBytes, masked } = require('./helpers/reference');

const SIZES = [0, 1, 63, 64, 65, 125, 126, 127, 65535, 65536, 2 ** 20 + 3];
// RFC 6455 §5.2: the header before a client frame's payload.
const headerOf = (size) => (size > 65535 ? 14 : size > 125 ? 8 : 6);

for (const name of NAMES) {
  it(`${name}: undici's createFrame and createFastTextFrame calls and websocket-driver's Hybi.mask, every header size`, () => {
    const impl = load(name);
    for (const size of SIZES) {
      const key = [...crypto.randomBytes(4)];
      const payload = crypto.randomBytes(size);
      const header = headerOf(size);
      const frame = Buffer.allocUnsafe(header + size).fill(0xee);
      const expected = masked(payload, key, frame, header, size);
      assert.strictEqual(impl.mask(payload, key, frame, header, size), undefined);
      assertBytes(frame, expected, `undici createFrame, ${size} B`);

      const text = Buffer.from(payload);
      assert.strictEqual(impl.unmask(text, key), undefined);
      assertBytes(text, masked(payload, key), `undici createFastTextFrame, ${size} B`);

      const driverKey = crypto.randomBytes(8);
      const message = Buffer.concat([crypto.randomBytes(header), payload]);
      const driverExpected = masked(payload, driverKey, message, header, size);
      impl.unmask(message.subarray(header), driverKey);
      assertBytes(message, driverExpected, `websocket-driver Hybi.mask, ${size} B`);
    }
  });
}
