'use strict';

// package.json's `prepublishOnly`: `npm publish` from a clone is refused, with the reason (npm itself refuses
// it for `private` under --ignore-scripts). The release publishes tarballs without either (scripts/lib/packages.js).

console.error(`npm publish from a clone is refused: this package.json is the development manifest (it builds the
addon on install and lists no platform packages), so the package would install without its addon. Releases are
published by .github/workflows/release.yml when a vX.Y.Z tag is pushed: see "How to release" in CONTRIBUTING.md.`);
process.exitCode = 1;
