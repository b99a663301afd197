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
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
for level in 0 3; do
  echo "== opt-level = $level (tile-kernel-macros, tile-kernel-lowering)"
  cargo test -q -p tile-kernel-macros --lib \
    --config "profile.dev.package.tile-kernel-macros.opt-level=$level" \
    --config "profile.dev.package.tile-kernel-lowering.opt-level=$level" \
    -- --ignored --exact pass_cases::expansion_times --nocapture 2>&1 \
    | grep -E ' ms|shipped kernels|panicked|FAILED' || true
done
