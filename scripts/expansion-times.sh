#!/usr/bin/env bash
# How long `#[tile_kernel]` takes to expand each example kernel (and the
# slowest of all shipped kernels), with the macro and the checker built at
# opt-level 0 (what a user's build gets without the profile override) and
# at opt-level 3 (this workspace's profile, and the README's snippet).
# Runs the ignored test `expansion_times` of tile-kernel-macros; set
# TILE_KERNEL_EXPANSION_BUDGET_MS=slowest,seed to fail above those times.
# For a profiler, TILE_KERNEL_EXPANSION_ONLY=name (with
# TILE_KERNEL_EXPANSION_REPS=n, default 200) expands only that kernel;
# docs/performance.md "Expansion time" has the callgrind command.
#
#   ./scripts/expansion-times.sh --instructions NAME..
#
# counts instead the instructions of one expansion of each named kernel at
# opt-level 0 (callgrind, every thread: a large kernel's proofs run on
# three): the difference between runs of 1 and 3 expansions, so
# once-per-process work is left out, divided among the kernels of that
# name. Independent of the machine's load and cores, unlike the times.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
config=(--config "profile.dev.package.tile-kernel-macros.opt-level=0"
        --config "profile.dev.package.tile-kernel-lowering.opt-level=0")
if [[ "${1:-}" == "--instructions" ]]; then
  shift
  binary=$(cargo test -p tile-kernel-macros --lib "${config[@]}" --no-run 2>&1 \
    | sed -n 's/.*Executable unittests src\/lib.rs (\(.*\))/\1/p' | tail -1)
  [[ -n "$binary" ]] || { echo "no test binary built" >&2; exit 1; }
  binary=$(realpath "$binary")
  # The macros' test binary links the toolchain's libstd dynamically.
  export LD_LIBRARY_PATH="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/host: //p')/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  for name in "$@"; do
    counts=()
    kernels=0
    for reps in 1 3; do
      out=$(cd macros && TILE_KERNEL_EXPANSION_ONLY="$name" TILE_KERNEL_EXPANSION_REPS=$reps \
        valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$binary" --ignored --exact pass_cases::expansion_times --nocapture 2>&1)
      counts+=("$(sed -n 's/.*Collected : \([0-9]*\)/\1/p' <<<"$out")")
      kernels=$(sed -n 's/^expanded \([0-9]*\) kernel.*/\1/p' <<<"$out")
    done
    if [[ "${kernels:-0}" -eq 0 ]]; then
      echo "$name: no shipped kernel of that name" >&2
      continue
    fi
    per=$(( (counts[1] - counts[0]) / (2 * kernels) ))
    echo "$name: $per instructions per expansion ($kernels kernel(s) of that name)"
  done
  exit 0
fi
for level in 0 3; do
  echo "== opt-level = $level (tile-kernel-macros, tile-kernel-lowering)"
  cargo test -q -p tile-kernel-macros --lib \
    --config "profile.dev.package.tile-kernel-macros.opt-level=$level" \
    --config "profile.dev.package.tile-kernel-lowering.opt-level=$level" \
    -- --ignored --exact pass_cases::expansion_times --nocapture 2>&1 \
    | grep -E ' ms|shipped kernels|panicked|FAILED' || true
done
