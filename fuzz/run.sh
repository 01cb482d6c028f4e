#!/usr/bin/env bash
# A bounded libFuzzer run of the kernel target: `fuzz/run.sh SECONDS` (default 60). Needs a nightly
# toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Exits non-zero when the fuzzer finds a failure;
# the input that failed is left in fuzz/artifacts/mask_raw/.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
mkdir -p corpus/mask_raw
exec cargo +nightly fuzz run mask_raw corpus/mask_raw -- -max_total_time="$seconds" -max_len=8192 -print_final_stats=1
