'use strict';

// Patches for an installed WebSocket stack (for __test__/integration/undici.js and benchmark/e2e.js, never
// shipped) routing its masking loops through this package from MASKER_FROM bytes on, as undici PR #3273 did
// with `ws-masking`: the loop kept for short payloads and for when the module is missing. Each must match the
// published source exactly, so a release that moved the loops fails loudly instead of testing them.

const fs = require('node:fs');
const path = require('node:path');

// PR #3273's threshold (lib/thresholds.js has the package's own, per runtime).
const MASKER_FROM = 64;

// undici 8.x needs Node ≥ 22.19 (its `engines`); 7.30.2 (Node ≥ 20.18.1) has the same frame.js loops, for Node 20.
const UNDICI_PINS = [
  { version: '8.13.1', node: [22, 19] },
  { version: '7.30.2', node: [20, 18] },
];
const WEBSOCKET_DRIVER = '0.8.0';

/** The undici pin for the running Node. */
function undiciPin(versions = process.versions.node) {
  const [major, minor] = versions.split('.').map(Number);
  const pin = UNDICI_PINS.find(({ node: [m, n] }) => major > m || (major === m && minor >= n));
  if (!pin) throw new Error(`no undici pin for Node ${versions}`);
  return pin.version;
}

const MARK = 'bufferutil-simd test/benchmark patch';

/**
 * Rewrites `file`: the `masker` import (this package) after `anchor`, then each `[find, replace]`; each `find` (and the
 * anchor) must occur exactly once. Returns `file`.
 */
function patch(file, anchor, replacements) {
  let text = fs.readFileSync(file, 'utf8');
  if (text.includes(MARK)) throw new Error(`patching ${file}: already patched`);
  const header = `${anchor}\n// ${MARK} (not the package's own code)\n`;
  const imports = `${header}let masker\ntry { masker = require("bufferutil-simd") } catch {}\n`;
  for (const [find, replace] of [[anchor, imports], ...replacements]) {
    const first = text.indexOf(find);
    if (first < 0 || text.indexOf(find, first + 1) >= 0) {
      const found = first < 0 ? 'none' : 'several';
      throw new Error(
        `patching ${file}: expected exactly one occurrence of\n${find}\n(found ${found}): the source changed, update the patch`
      );
    }
    text = text.slice(0, first) + replace + text.slice(first + find.length);
  }
  fs.writeFileSync(file, text);
  return file;
}

/**
 * undici's frame.js: `createFrame`'s loop into the frame buffer becomes `masker.mask`, `createFastTextFrame`'s
 * in-place loop `masker.unmask`; `maskKey` stays undici's Array of 4 numbers.
 */
const patchUndici = (undiciDir) =>
  patch(
    path.join(undiciDir, 'lib', 'web', 'websocket', 'frame.js'),
    "const { maxUnsigned16Bit, opcodes } = require('./constants')",
    [
      [
        '    for (let i = 0; i < bodyLength; ++i) {\n      buffer[offset + i] = frameData[i] ^ maskKey[i & 3]\n    }\n',
        `    if (masker !== undefined && bodyLength >= ${MASKER_FROM}) {\n      masker.mask(frameData, maskKey, buffer, offset, bodyLength)\n    } else {\n` +
          '      for (let i = 0; i < bodyLength; ++i) {\n        buffer[offset + i] = frameData[i] ^ maskKey[i & 3]\n      }\n    }\n',
      ],
      [
        '    for (let i = 0; i < bodyLength; ++i) {\n      buffer[i] ^= maskKey[i & 3]\n    }\n',
        `    if (masker !== undefined && bodyLength >= ${MASKER_FROM}) {\n      masker.unmask(buffer, maskKey)\n    } else {\n` +
          '      for (let i = 0; i < bodyLength; ++i) {\n        buffer[i] ^= maskKey[i & 3]\n      }\n    }\n',
      ],
    ]
  );

/** websocket-driver's hybi.js: `Hybi.mask(payload, mask, offset)` XORs `payload[offset..]` in place, so `masker.unmask`. */
const patchWebsocketDriver = (driverDir) =>
  patch(path.join(driverDir, 'lib', 'websocket', 'driver', 'hybi.js'), "'use strict';\n", [
    [
      '  for (var i = 0, n = payload.length - offset; i < n; i++) {\n    payload[offset + i] = payload[offset + i] ^ mask[i % 4];\n  }\n',
      `  if (masker !== undefined && payload.length - offset >= ${MASKER_FROM}) {\n    masker.unmask(offset === 0 ? payload : payload.subarray(offset), mask);\n    return payload;\n  }\n` +
        '  for (var i = 0, n = payload.length - offset; i < n; i++) {\n    payload[offset + i] = payload[offset + i] ^ mask[i % 4];\n  }\n',
    ],
  ]);

module.exports = { MASKER_FROM, WEBSOCKET_DRIVER, undiciPin, patchUndici, patchWebsocketDriver };
