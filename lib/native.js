'use strict';

// Loads the native addon for this platform and binds it at the level this environment asks for
// (`level.js`), or throws. `index.js` decides what to do without it. Exports the tier (`mask`, `unmask`,
// `backend`, as every tier does), the bound object with the addon's fast entries (`bound`), and the addon
// itself (`addon`: tests and benchmarks bind other levels with it).
//
// Where the addon is looked for, first to last: the file `npm run build` leaves in the package's root, then the
// platform package that npm installs as an optional dependency.

const { requested } = require('./level');
const { refusingImmutable } = require('./checks');

const { platform, arch } = process;

/** The napi-rs names of this platform's builds, most likely first (glibc before musl on Linux). */
function platformNames() {
  if (platform === 'linux') {
    const abis = arch === 'arm' ? ['gnueabihf', 'musleabihf'] : ['gnu', 'musl'];
    return abis.map((abi) => `linux-${arch}-${abi}`);
  }
  if (platform === 'win32') return [`win32-${arch}-msvc`];
  if (platform === 'darwin') return [`darwin-${arch}`];
  return [`${platform}-${arch}`];
}

function load() {
  const errors = [];
  for (const name of platformNames()) {
    for (const path of [`../bufferutil-simd.${name}.node`, `bufferutil-simd-${name}`]) {
      try {
        return require(path);
      } catch (error) {
        errors.push(`${path}: ${error.message.split('\n')[0]}`);
      }
    }
  }
  const error = new Error(`No bufferutil-simd addon loads on ${platform}-${arch}:\n  ${errors.join('\n  ')}`);
  error.code = 'ERR_BUFFERUTIL_SIMD_NO_ADDON';
  throw error;
}

const addon = load();
// `bind` gives this environment its own functions and level: other threads' choices cannot change them.
const bound = addon.bind(requested);

module.exports = {
  ...refusingImmutable({ mask: bound.mask, unmask: bound.unmask, backend: bound.backend }),
  kernelLevel: bound.kernelLevel,
  bound,
  addon,
};
