'use strict';

// package.json's `prepublishOnly`: `npm publish` from a clone is refused, here with the reason (and, with
// --ignore-scripts, by npm itself, for `private`). A clone's manifest builds the addon on install
// (`prepare`) and lists no platform packages, so what it published would install as WebAssembly only. The
// release workflow publishes the tarballs it tested, whose manifests have neither field
// (scripts/lib/manifest.js).

console.error(`npm publish from a clone is refused: this package.json is the development manifest (it builds the
addon on install and lists no platform packages), so the package would install without its addon.
Releases are published by .github/workflows/release.yml when a v* tag is pushed: see "How to release" in
CONTRIBUTING.md.`);
process.exitCode = 1;
