#!/usr/bin/env bash
# tile-kernel-candle on the GPU machine: the `on_gpu` twins of
# candle/tests/ops.rs (candle's CUDA device) and the llama_block example
# timed against candle's own ops. The GPU machine has no cargo: build here
# with candle's `cuda` feature into $BIN (default gpu-bin/, which git
# ignores) and carry it (docs/candle.md, "Building the cuda feature"):
#
#   scripts/install-candle-cuda.sh && source .tools/cuda13/env.sh
#   mkdir -p gpu-bin
#   cargo test --release --no-run -p tile-kernel-candle --features cuda --test ops 2>&1 \
#     | sed -n 's/.*Executable .*(\(.*\))/\1/p' | xargs -I{} cp {} gpu-bin/candle_ops
#   cargo build --release -p tile-kernel-candle --features cuda --example llama_block
#   cp "$CARGO_TARGET_DIR"/release/examples/llama_block gpu-bin/candle_llama_block
#
# candle's cuda feature links libcublas, libcublasLt, libcurand, libnvrtc
# and libcudart (CUDA 13) dynamically: this script puts the folders of a
# PyTorch installation's site-packages that hold them on LD_LIBRARY_PATH.
#
# Usage: scripts/candle-gpu.sh
set -u
BIN=${BIN:-"$(dirname "$0")/../gpu-bin"}
status=0
for lib in libcublas.so.13 libcublasLt.so.13 libcurand.so.10 libnvrtc.so.13 libcudart.so.13; do
  dir=$(find /opt /usr/local /usr/lib -name "$lib" -path '*nvidia*' 2>/dev/null | head -n 1 | xargs -r dirname)
  [ -n "$dir" ] && export LD_LIBRARY_PATH="$dir:${LD_LIBRARY_PATH:-}"
done
echo "== candle/tests/ops.rs, with the GPU twins"
"$BIN/candle_ops" --include-ignored || status=1
echo "== llama_block on candle's CUDA device"
TILE_KERNEL_CANDLE_DEVICE=cuda "$BIN/candle_llama_block" || status=1
exit $status
