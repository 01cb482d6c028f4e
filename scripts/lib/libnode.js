'use strict';

// napi-build links `-lnode` for the windows-gnu targets and panics unless LIBNODE_PATH holds a `libnode.dll`,
// yet the addon takes no symbol from it: napi's `dyn-symbols` looks Node-API up in the loading process. So
// an empty archive stands in, as `libnode.dll.a` (what GNU ld tries first) and `libnode.dll` (what
// napi-build checks for), in target/libnode/: pack-platforms.js puts it in LIBNODE_PATH, and the release runs
// `node scripts/lib/libnode.js >> "$GITHUB_ENV"`.

const fs = require('node:fs');
const path = require('node:path');

function emptyLibnode() {
  const dir = path.join(__dirname, '..', '..', 'target', 'libnode');
  fs.mkdirSync(dir, { recursive: true });
  for (const name of ['libnode.dll.a', 'libnode.dll'])
    if (!fs.existsSync(path.join(dir, name))) fs.writeFileSync(path.join(dir, name), '!<arch>\n');
  return dir;
}

module.exports = { emptyLibnode };

if (require.main === module) console.log(`LIBNODE_PATH=${emptyLibnode()}`);
