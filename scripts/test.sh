#!/usr/bin/env bash
# The whole test suite: installs the pinned ptxas (PTX assembly tests need it;
# a missing ptxas fails them), then runs every test in the workspace.
#
# GPU tests are #[ignore]d: without a GPU each test binary's summary line
# counts them as "N ignored", never as passed. On a GPU machine set
# TILE_KERNEL_REQUIRE_GPU=1: the test binaries then get --include-ignored,
# so the GPU tests run and a missing GPU fails them. On a machine with one
# GPU, skip the two-GPU test by name, and the interpreter twins of the
# warp-specialised kernels, which --include-ignored would run (the
# interpreter cannot run them yet: docs/async-copies.md, "Roles"):
#   TILE_KERNEL_REQUIRE_GPU=1 ./scripts/test.sh -- --skip tensors_of_another_gpu \
#     --skip a_ring_with_a_producer_warp::on_cpu \
#     --skip a_ring_with_a_synced_producer_warp::on_cpu \
#     --skip a_producer_warpgroup_feeds_two_consumers::on_cpu
# Arguments go to `cargo test` (after `--`: to the test binaries).
#
# The certification tests (lowering/tests/certify.rs) need exactly ptxas
# 12.9.86 and fail with any other, also one named by $TILE_KERNEL_PTXAS;
# the other assembly tests accept any ptxas given there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
./scripts/install-ptxas.sh
args=("$@")
if [ "${TILE_KERNEL_REQUIRE_GPU:-0}" = 1 ]; then
  has_separator=0
  for arg in "${args[@]}"; do
    if [ "$arg" = "--" ]; then has_separator=1; fi
  done
  if [ "$has_separator" = 1 ]; then
    args+=(--include-ignored)
  else
    args+=(-- --include-ignored)
  fi
  echo "TILE_KERNEL_REQUIRE_GPU=1: running the GPU tests too (--include-ignored)"
fi
cargo test --workspace --all-targets "${args[@]}"
# Doc tests: `ignore`d doc blocks are not GPU tests, so no --include-ignored.
cargo test --workspace --doc
