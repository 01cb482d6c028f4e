'use strict';

// The `libnode.dll` a windows-gnu build asks for, and why none is needed. napi-build (run by the napi
// crate's build script and this crate's) links `-lnode` for the windows-gnu targets and panics unless
// LIBNODE_PATH (or PATH) holds a file named `libnode.dll`. The addon takes no symbol from it: napi's
// `dyn-symbols` feature looks Node-API up in the process that loads the addon. So an empty archive stands
// in, as `libnode.dll.a` (the name GNU ld tries first for `-lnode`) and as `libnode.dll` (the name
// napi-build checks for): nothing is linked from it, and the DLL imports nothing from node.exe.
//
// pack:platforms puts it in LIBNODE_PATH for the x86_64-pc-windows-gnu build; the release workflow runs
// `node scripts/lib/libnode.js >> "$GITHUB_ENV"` for the same build. Both get target/libnode/.

const fs = require('node:fs');
const path = require('node:path');

const DIR = path.join(__dirname, '..', '..', 'target', 'libnode');

/** Writes the empty archives into target/libnode/ (if missing) and returns that folder. */
function emptyLibnode() {
  fs.mkdirSync(DIR, { recursive: true });
  for (const name of ['libnode.dll.a', 'libnode.dll']) {
    const file = path.join(DIR, name);
    if (!fs.existsSync(file)) fs.writeFileSync(file, '!<arch>\n');
  }
  return DIR;
}

module.exports = { emptyLibnode };

if (require.main === module) {
  console.log(`LIBNODE_PATH=${emptyLibnode()}`);
}
