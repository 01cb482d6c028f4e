'use strict';

// The ws drop-in, as a user sets it up: `npm install ws bufferutil@npm:bufferutil-simd` in a fresh project
// (no ERESOLVE, no peer warning), then a ws server and client on 127.0.0.1 exchanging text and binary
// messages of the sizes where the frame header changes, every byte checked, and proof that ws called this
// package rather than its own JavaScript loop.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { createRequire } = require('node:module');
const { rootManifest, packRelease, tempDir, userProject, npmInstall } = require('../../scripts/lib/packages');
const { startRegistry } = require('../../scripts/lib/registry');
const { randomText } = require('../helpers/random-text');
const { count } = require('./bundlers/count-calls');
const { echoPair } = require('./bundlers/echo');

// 7-bit, 16-bit and 64-bit payload lengths, each side of every boundary, and one large odd size.
const SIZES = [0, 1, 125, 126, 127, 65535, 65536, 1024 * 1024 + 3];
// ws 8.23 hands frames to bufferutil from these sizes up (below them it masks in JavaScript).
const WS_MASK_FROM = 48;
const WS_UNMASK_FROM = 32;

const wsVersion = rootManifest.devDependencies.ws;
const nodeHasWebsocketMask = typeof http.websocketMask === 'function';

let work;
let registry;
let project;
let installOutput;

before(async () => {
  // Either one would keep ws away from bufferutil, or this package away from its addon.
  delete process.env.WS_NO_BUFFER_UTIL;
  delete process.env.BUFFERUTIL_SIMD_LEVEL;
  work = tempDir('bufferutil-simd-ws-');
  const release = packRelease(work);
  registry = await startRegistry([release.main, ...Object.values(release.platforms)]);
  project = userProject(work, 'ws-user');
  // The documented one-liner, verbatim but for the registry and the ws version.
  installOutput = await npmInstall(project, registry.url, [`ws@${wsVersion}`, `bufferutil@npm:${rootManifest.name}`]);
});

after(async () => {
  await registry?.close();
  if (work && !process.env.KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

test('npm installs the alias without conflicts or peer warnings', () => {
  const output = installOutput.stdout + installOutput.stderr;
  assert.doesNotMatch(output, /ERESOLVE|peer|conflict/i, output);
  const manifest = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8'));
  assert.equal(manifest.dependencies.bufferutil, `npm:${rootManifest.name}@^${rootManifest.version}`);
  const installed = JSON.parse(fs.readFileSync(path.join(project, 'node_modules/bufferutil/package.json'), 'utf8'));
  assert.equal(installed.name, rootManifest.name, 'node_modules/bufferutil is this package');
});

test('ws echoes text and binary messages of every size through bufferutil-simd', async (t) => {
  const userRequire = createRequire(path.join(project, 'index.js'));
  const bufferUtil = userRequire('bufferutil');
  // ws looks the functions up on each call, so it calls the counting wrappers.
  const calls = count(bufferUtil);

  if (nodeHasWebsocketMask) {
    t.diagnostic(`Node ${process.version} has http.websocketMask: ws ${wsVersion} uses it and never loads bufferutil`);
  } else {
    t.diagnostic(
      `Node ${process.version} has no http.websocketMask: ws ${wsVersion} must use bufferutil (backend ${bufferUtil.backend})`
    );
    assert.notEqual(bufferUtil.backend, 'js', 'bufferutil-simd loaded without its addon');
    // The module ws requires by name is the one counted here.
    const wsRequire = createRequire(path.join(path.dirname(userRequire.resolve('ws')), 'lib/buffer-util.js'));
    assert.equal(wsRequire.resolve('bufferutil'), userRequire.resolve('bufferutil'));
  }

  // Client→server frames are masked (the client's mask, the server's unmask).
  const echo = await echoPair(userRequire('ws'));
  let expectedMasks = 0;
  let expectedUnmasks = 0;
  try {
    for (const size of SIZES) {
      for (const binary of [true, false]) {
        const sent = binary ? crypto.randomBytes(size) : randomText(size);
        assert.equal(Buffer.byteLength(sent), size);
        echo.send(sent, binary);
        const { data, isBinary } = await echo.next();
        const what = `${binary ? 'binary' : 'text'} message of ${size} bytes`;
        assert.equal(isBinary, binary, what);
        assert.ok((binary ? sent : Buffer.from(sent)).equals(data), `${what}: bytes differ`);
        if (!binary) assert.equal(data.toString('utf8'), sent, what);
        if (size >= WS_MASK_FROM) expectedMasks++;
        if (size >= WS_UNMASK_FROM) expectedUnmasks++;
      }
    }
  } finally {
    await echo.close();
  }

  t.diagnostic(`bufferutil-simd calls: mask ${calls.mask}, unmask ${calls.unmask}`);
  if (nodeHasWebsocketMask) {
    assert.equal(calls.mask + calls.unmask, 0, 'ws is expected to use http.websocketMask here');
  } else {
    assert.equal(calls.mask, expectedMasks, 'ws did not mask every large frame with bufferutil-simd');
    assert.equal(calls.unmask, expectedUnmasks, 'ws did not unmask every large frame with bufferutil-simd');
  }
});
