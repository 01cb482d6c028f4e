#!/usr/bin/env bash
# The kernel tests for wasm32-wasip1 at simd128 (the level the WebAssembly tier runs), under Node's WASI
# (wasi-run.mjs). A machine that cannot add the rustup target skips them (exit 0); a failure exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/../.."

target=wasm32-wasip1
rustup target list --installed | grep -qx "$target" || rustup target add "$target" >/dev/null 2>&1 ||
  { echo "test:wasm-kernel: skipped, the $target standard library cannot be installed here"; exit 0; }

export CARGO_TARGET_WASM32_WASIP1_RUNNER="node --no-warnings $PWD/scripts/rig/wasi-run.mjs"
export RUSTFLAGS="-C target-feature=+simd128"
cargo test --target "$target" --lib -- --test-threads=1
