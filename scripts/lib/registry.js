'use strict';

// A throwaway npm registry on 127.0.0.1 for the install tests: it serves the tarballs it is given as if they
// were published and passes every other request to the real registry, so the tests run a user's exact
// commands (`npm install bufferutil@npm:bufferutil-simd`, optionalDependencies chosen by os/cpu/libc).
// `node scripts/lib/registry.js [DIR]` serves DIR's tarballs (target/packages/) until stopped, for trying them
// by name in an app (CONTRIBUTING.md).

const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const zlib = require('node:zlib');
const { root, rootManifest, run } = require('./packages');

/** The package/package.json of a tarball's bytes, read in Node: Windows runners may have no `tar` that takes a drive letter. */
function manifestOf(tarball) {
  const tar = zlib.gunzipSync(tarball);
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0; ) {
    const field = (from, length) => tar.toString('utf8', at + from, at + from + length).replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const name = [field(345, 155), field(0, 100)].filter(Boolean).join('/');
    if (name === 'package/package.json') return JSON.parse(tar.toString('utf8', at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error('a tarball without package/package.json');
}

/** A gzipped tarball of `manifest` as its only file, package/package.json, laid out as `npm pack` would. */
function tarOf(manifest) {
  const body = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  const header = Buffer.alloc(512);
  const put = (at, length, value) => header.write(String(value), at, length, 'utf8');
  put(0, 100, 'package/package.json');
  put(100, 8, '0000644');
  put(108, 8, '0000000');
  put(116, 8, '0000000');
  put(124, 12, body.length.toString(8).padStart(11, '0'));
  put(136, 12, '00000000000');
  put(148, 8, ' '.repeat(8));
  put(156, 1, '0');
  put(257, 8, 'ustar\x0000');
  const checksum = header.reduce((sum, byte) => sum + byte, 0);
  put(148, 8, `${checksum.toString(8).padStart(6, '0')}\0 `);
  const padding = Buffer.alloc((512 - (body.length % 512)) % 512);
  return zlib.gzipSync(Buffer.concat([header, body, padding, Buffer.alloc(1024)]));
}

/** The platform packages the served manifests name in optionalDependencies but no tarball brings (targets not built here),
 * as stubs: npm/<platform>/package.json at that version, without the addon. A package manager that resolves every optional
 * dependency whatever the platform (Yarn 1, `deno install`) finds them as on npm; none is installed on this platform. */
function stubsFor(manifests) {
  const served = new Set(manifests.map(({ name, version }) => `${name}@${version}`));
  const stubs = [];
  for (const { name, optionalDependencies = {} } of manifests)
    for (const [dependency, version] of Object.entries(optionalDependencies)) {
      const folder = path.join(root, 'npm', dependency.slice(name.length + 1));
      if (!dependency.startsWith(`${name}-`) || served.has(`${dependency}@${version}`) || !fs.existsSync(folder)) continue;
      served.add(`${dependency}@${version}`);
      const { main: _addon, files: _files, ...manifest } = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
      stubs.push(tarOf({ ...manifest, version, description: `${manifest.description} (a local registry's stub: no addon)` }));
    }
  return stubs;
}

/** Starts the registry, serving `tarballs` and their stubs (stubsFor); resolves to `{ url, close() }`. */
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

  const now = new Date().toISOString();
  const given = tarballs.map((tarball) => fs.readFileSync(tarball));
  for (const data of [...given, ...stubsFor(given.map(manifestOf))]) {
    const manifest = manifestOf(data);
    const file = `/${manifest.name}/-/${manifest.name}-${manifest.version}.tgz`;
    files.set(file, data);
    const packument = packuments.get(manifest.name) ?? { name: manifest.name, 'dist-tags': {}, versions: {}, time: {} };
    packument['dist-tags'].latest = manifest.version;
    // Published now, as on release day: the package managers that hold back new versions (Yarn 4's npmMinimalAgeGate,
    // pnpm's minimumReleaseAge) hold these back as they would the release.
    packument.time = { ...packument.time, created: packument.time.created ?? now, modified: now, [manifest.version]: now };
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
  const dir = path.resolve(process.argv[2] ?? path.join(root, 'target', 'packages'));
  const folder = fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory();
  const tarballs = folder ? fs.readdirSync(dir).filter((file) => file.endsWith('.tgz')) : [];
  if (!tarballs.length) {
    console.error(`no .tgz in ${dir}: run \`node scripts/pack-platforms.js\` first, or name a folder of tarballs`);
    process.exit(2);
  }
  startRegistry(tarballs.map((file) => path.join(dir, file))).then(({ url }) => {
    console.log(`serving ${tarballs.join(', ')} at ${url} (everything else from the real registry); Ctrl-C stops it`);
    console.log(`in an app: npm install --registry=${url} ws bufferutil@npm:bufferutil-simd@^${rootManifest.version}`);
  });
}
