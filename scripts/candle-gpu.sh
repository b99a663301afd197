#!/usr/bin/env bash
# tile-kernel-candle on the GPU machine: the `on_gpu` twins of
# candle/tests/ops.rs (candle's CUDA device) and the llama_block example
# timed against candle's own ops. The GPU machine has no cargo: build here
# with candle's `cuda` feature into $BIN (default gpu-bin/, which git
# ignores) and carry it. That build needs what docs/candle.md ("Building
# the cuda feature") lists; once it is there:
#
#   mkdir -p gpu-bin
#   cargo test --release --no-run -p tile-kernel-candle --features cuda --test ops 2>&1 \
#     | sed -n 's/.*Executable .*(\(.*\))/\1/p' | xargs -I{} cp {} gpu-bin/candle_ops
#   cargo build --release -p tile-kernel-candle --features cuda --example llama_block
#   cp "${CARGO_TARGET_DIR:-target}"/release/examples/llama_block gpu-bin/candle_llama_block
#
# candle's cuda feature links libcublas, libcublasLt, libcurand, libnvrtc
# and libcudart dynamically: on the GPU machine, put the directories that
# hold them on LD_LIBRARY_PATH (e.g. the nvidia/*/lib folders of a PyTorch
# installation's site-packages) before running this.
#
# Usage: scripts/candle-gpu.sh
set -u
BIN=${BIN:-"$(dirname "$0")/../gpu-bin"}
status=0
echo "== candle/tests/ops.rs, with the GPU twins"
"$BIN/candle_ops" --include-ignored || status=1
echo "== llama_block on candle's CUDA device"
TILE_KERNEL_CANDLE_DEVICE=cuda "$BIN/candle_llama_block" || status=1
exit $status
