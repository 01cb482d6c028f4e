'use strict';

// A publish by hand cannot ship the development manifest (it builds the addon on install and lists no platform
// packages): npm publish from the clone is refused, before sending anything. The release's tarballs publish.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { root, rootManifest, packRelease, tempDir, run } = require('../../scripts/lib/packages');

const sent = [];
// A registry that accepts nothing and records every request but a GET (npm may GET the packument first).
const registry = http.createServer((req, res) => {
  if (req.method !== 'GET') sent.push(`${req.method} ${req.url}`);
  res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":"this registry accepts nothing"}');
});
let [url, work] = [];
before(async () => {
  await new Promise((resolve) => registry.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${registry.address().port}/`;
  work = tempDir('bufferutil-simd-publish-');
});
after(async () => {
  await new Promise((resolve) => registry.close(resolve));
  fs.rmSync(work, { recursive: true, force: true });
});

/** `npm publish ARGS` in `cwd` against the recording registry, with a token for it; resolves to { code, output }. */
const publish = (args, cwd) =>
  run('npm', ['publish', '--registry', url, `--${url.slice('http:'.length)}:_authToken=not-a-token`, ...args], { cwd }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error) => ({ code: error.code, output: error.message })
  );

test('npm publish from the clone is refused saying how to release; with --ignore-scripts npm refuses it as private', async () => {
  const HOW_TO_RELEASE = /npm publish from a clone is refused[\s\S]*"How to release" in\s+CONTRIBUTING\.md/;
  for (const args of [[], ['--dry-run'], ['--ignore-scripts']]) {
    const refusal = args.includes('--ignore-scripts') ? /marked as private/ : HOW_TO_RELEASE;
    const { code, output } = await publish(args, root);
    assert.notEqual(code, 0, `npm publish ${args.join(' ')} succeeded:\n${output}`);
    assert.match(output, refusal);
  }
  assert.deepEqual(sent, [], 'sent to the registry');
  assert.match(fs.readFileSync(path.join(root, 'CONTRIBUTING.md'), 'utf8'), /^## How to release$/m);
});

test("the release's root tarball publishes", async () => {
  // That it has no guard (not private, no prepublishOnly) and pins the platform packages: __test__/integration/pack.js.
  const release = packRelease(work);
  const { code, output } = await publish(['--dry-run', release.main], work);
  assert.equal(code, 0, output);
  assert.match(output, new RegExp(`\\+ ${rootManifest.name}@${rootManifest.version.replaceAll('.', '\\.')}`));
});
