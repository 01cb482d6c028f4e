#!/usr/bin/env bash
# The kernel tests for aarch64 (the NEON level) under qemu-user, on an x86-64 machine. Installs what it
# needs where it can (the rustup target, a cross linker, qemu-user); says so and exits 0 where it cannot,
# so that a machine without them skips this rather than fails. A test failure exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

target=aarch64-unknown-linux-gnu
skip() { echo "test:aarch64: skipped, $1"; exit 0; }

rustup target list --installed | grep -qx "$target" || rustup target add "$target" >/dev/null 2>&1 ||
  skip "the $target standard library cannot be installed here"
if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
  command -v apt-get >/dev/null || skip "no aarch64-linux-gnu-gcc or qemu-aarch64, and no apt-get"
  { apt-get update -qq && apt-get install -y -qq gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user; } \
    >/dev/null 2>&1 || skip "gcc-aarch64-linux-gnu and qemu-user cannot be installed here"
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
cargo clippy --target "$target" --all-targets -- -D warnings
cargo test --target "$target" --lib
