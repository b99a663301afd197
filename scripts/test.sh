#!/usr/bin/env bash
# The whole test suite: installs the pinned ptxas (PTX assembly tests need it;
# a missing ptxas fails them), then runs every test in the workspace.
# GPU tests are #[ignore]d and show as ignored in the summary; on a GPU
# machine run them with `cargo test -- --include-ignored`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
./scripts/install-ptxas.sh
cargo test --workspace --all-targets "$@"
cargo test --workspace --doc
