#!/usr/bin/env bash
# The whole test suite: installs the pinned ptxas (PTX assembly tests need it;
# a missing ptxas fails them), then runs every test in the workspace.
# GPU tests skip with a printed reason without a CUDA driver; set
# TILE_KERNEL_REQUIRE_GPU=1 to make them fail instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
./scripts/install-ptxas.sh
cargo test --workspace --all-targets "$@"
cargo test --workspace --doc
