#!/usr/bin/env bash
# `fuzz/run.sh SECONDS` (default 60): a bounded libFuzzer run of the kernel target; non-zero when it finds a failure,
# the input left in fuzz/artifacts/mask_raw/. `fuzz/run.sh miri`: `cargo miri test` over the kernel instead. Both on
# the nightly rust-toolchain.toml pins, installed here if missing, and cargo-fuzz at CARGO_FUZZ.
set -euo pipefail
cd "$(dirname "$0")"
CARGO_FUZZ=0.13.2
nightly="$(sed -n 's/^channel = "\(.*\)"$/\1/p' rust-toolchain.toml)"
rustup toolchain list | grep -q "^$nightly-" || rustup toolchain install "$nightly" --profile minimal -c miri -c rust-src
if [ "${1:-}" = miri ]; then
  echo "miri: the portable and SSE2 levels (Miri detects no wider one), shorter sweeps; cargo test runs the ignored ones"
  cd .. && exec cargo "+$nightly" miri test --lib
fi
[ "$(cargo fuzz --version 2>/dev/null)" = "cargo-fuzz $CARGO_FUZZ" ] || cargo install cargo-fuzz --version "$CARGO_FUZZ" --locked
mkdir -p corpus/mask_raw
exec cargo fuzz run mask_raw corpus/mask_raw -- -max_total_time="${1:-60}" -max_len=8192 -print_final_stats=1
