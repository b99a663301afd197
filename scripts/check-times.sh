#!/usr/bin/env bash
# What `cargo check` costs a user per kernel, in rustc itself (the proc
# macro loaded by the compiler, the expansion's output type-checked), not
# in the benchmark of scripts/expansion-times.sh (the macro outside rustc,
# on proc_macro2's fallback). It builds a throwaway crate beside this
# workspace that depends on it by path, with N copies of the quantizer
# `quantize_32_x16` (examples/common/quantize.rs, issue 18's measure: a
# crate of 50 quantizers), and times `cargo check` after a touch of its
# source, the macro and the checker built at opt-level 0 (a user's build
# without the profile override) and at opt-level 3 (with it). The time of
# the same crate with no kernel is subtracted.
#
#   ./scripts/check-times.sh [N] [REPEATS]     # 50 kernels, 5 checks each by default
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:-50}
repeats=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
cp "$root/Cargo.lock" "$work/"
[[ -f "$root/rust-toolchain.toml" ]] && cp "$root/rust-toolchain.toml" "$work/"

# The quantizer's `macro_rules!` from the example, then N invocations.
write_source() {
  local count=$1
  {
    echo '#![allow(dead_code, unused_macros, unused_imports)]'
    echo 'use tile_kernel::prelude::*;'
    sed -n '/^macro_rules! quantize_kernel/,/^}/p' "$root/examples/common/quantize.rs"
    for ((i = 0; i < count; i++)); do
      echo "quantize_kernel!(q$i, block = 32, per_lane = 16, words = 4, lanes = 2, shuffles = 1, blocks = 16, st = \"st.global.v4.b32\");"
    done
  } >"$work/src/lib.rs"
}

write_manifest() {
  local level=$1
  cat >"$work/Cargo.toml" <<EOF
[package]
name = "check-times"
version = "0.1.0"
edition = "2024"

[dependencies]
tile-kernel = { path = "$root" }

[profile.dev.package.tile-kernel-macros]
opt-level = $level

[profile.dev.package.tile-kernel-lowering]
opt-level = $level

[workspace]
EOF
}

# The median of REPEATS `cargo check`s, each after a touch (seconds).
median_check() {
  local times=()
  for ((r = 0; r < repeats; r++)); do
    touch "$work/src/lib.rs"
    local start end
    start=$(date +%s.%N)
    (cd "$work" && cargo check -q --offline)
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc)")
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((repeats + 1) / 2))p"
}

for level in 0 3; do
  write_manifest "$level"
  write_source 0
  (cd "$work" && cargo check -q --offline)   # build the dependencies once
  empty=$(median_check)
  write_source "$n"
  full=$(median_check)
  per=$(echo "($full - $empty) * 1000 / $n" | bc -l)
  printf 'opt-level %s: cargo check of %s quantizers %.2f s, of none %.2f s: %.1f ms per kernel\n' \
    "$level" "$n" "$full" "$empty" "$per"
done
