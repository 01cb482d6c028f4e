'use strict';

// A throwaway npm registry on 127.0.0.1 for the install tests: it serves the tarballs it is given as if they
// were published and passes every other request to the real registry, so the tests run a user's exact
// commands (`npm install bufferutil@npm:bufferutil-simd`, optionalDependencies chosen by os/cpu/libc).
// `node scripts/lib/registry.js [DIR]` serves DIR's tarballs (target/packages/) until stopped, for trying them
// by name in an app (CONTRIBUTING.md).

const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const zlib = require('node:zlib');
const { run } = require('./packages');

/** A tarball's package/package.json, read in Node: Windows runners may have no `tar` that takes a drive letter. */
function manifestOf(tarball) {
  const tar = zlib.gunzipSync(fs.readFileSync(tarball));
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0; ) {
    const field = (from, length) => tar.toString('utf8', at + from, at + from + length).replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const name = [field(345, 155), field(0, 100)].filter(Boolean).join('/');
    if (name === 'package/package.json') return JSON.parse(tar.toString('utf8', at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${tarball} has no package/package.json`);
}

/** Starts the registry; resolves to `{ url, close() }`. Unknown packages come from the registry npm is configured with. */
async function startRegistry(tarballs) {
  const upstream = (await run('npm', ['config', 'get', 'registry'])).stdout.trim();
  const [packuments, files] = [new Map(), new Map()];
  const send = (res, status, type, body) =>
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
  const server = http.createServer(async (req, res) => {
    const { pathname } = new URL(req.url, 'http://localhost');
    const name = decodeURIComponent(pathname.slice(1));
    try {
      if (packuments.has(name)) return send(res, 200, 'application/json', JSON.stringify(packuments.get(name)));
      if (files.has(pathname)) return send(res, 200, 'application/octet-stream', files.get(pathname));
      const reply = await fetch(new URL(req.url.slice(1), upstream), { headers: { accept: req.headers.accept ?? '*/*' } });
      const type = reply.headers.get('content-type') ?? 'application/octet-stream';
      send(res, reply.status, type, Buffer.from(await reply.arrayBuffer()));
    } catch (error) {
      send(res, 502, 'text/plain', String(error));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;

  for (const tarball of tarballs) {
    const manifest = manifestOf(tarball);
    const data = fs.readFileSync(tarball);
    const file = `/${manifest.name}/-/${manifest.name}-${manifest.version}.tgz`;
    files.set(file, data);
    const packument = packuments.get(manifest.name) ?? { name: manifest.name, 'dist-tags': {}, versions: {} };
    packument['dist-tags'].latest = manifest.version;
    packument.versions[manifest.version] = {
      ...manifest,
      _id: `${manifest.name}@${manifest.version}`,
      dist: {
        tarball: new URL(file.slice(1), url).href,
        integrity: `sha512-${crypto.createHash('sha512').update(data).digest('base64')}`,
        shasum: crypto.createHash('sha1').update(data).digest('hex'),
      },
    };
    packuments.set(manifest.name, packument);
  }
  return { url, close: () => new Promise((resolve) => server.close(resolve)) };
}

module.exports = { startRegistry };

if (require.main === module) {
  const path = require('node:path');
  const dir = path.resolve(process.argv[2] ?? path.join(__dirname, '..', '..', 'target', 'packages'));
  let tarballs = [];
  try {
    tarballs = fs.readdirSync(dir).filter((file) => file.endsWith('.tgz'));
  } catch {}
  if (!tarballs.length) {
    console.error(`no .tgz in ${dir}: run \`node scripts/pack-platforms.js\` first, or name a folder of tarballs`);
    process.exit(2);
  }
  startRegistry(tarballs.map((file) => path.join(dir, file))).then(({ url }) => {
    const { version } = require('../../package.json');
    console.log(`serving ${tarballs.join(', ')} at ${url} (everything else from the real registry); Ctrl-C stops it`);
    console.log(`in an app: npm install --registry=${url} ws bufferutil@npm:bufferutil-simd@^${version}`);
  });
}
