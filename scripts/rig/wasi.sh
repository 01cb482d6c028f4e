#!/usr/bin/env bash
# The kernel tests for wasm32 with simd128 (the level the WebAssembly tier runs), built for wasm32-wasip1
# and run under Node's WASI. Adds the rustup target where it can; says so and exits 0 where it cannot,
# so that a machine without it skips this rather than fails. A test failure exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/../.."

target=wasm32-wasip1
skip() { echo "test:wasm-kernel: skipped, $1"; exit 0; }

rustup target list --installed | grep -qx "$target" || rustup target add "$target" >/dev/null 2>&1 ||
  skip "the $target standard library cannot be installed here"

export CARGO_TARGET_WASM32_WASIP1_RUNNER="node --no-warnings $PWD/scripts/rig/wasi-run.mjs"
export RUSTFLAGS="-C target-feature=+simd128"
cargo test --target "$target" --lib -- --test-threads=1
