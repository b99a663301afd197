#!/usr/bin/env bash
# What is built but has not run on a GPU yet, in one device command (one
# machine start): the multicast ring (with the sanitizers), candle's CUDA half (tests and timings), the GEMM example
# with its persistent, bf16-output and SiLU kernels and the cuBLAS
# references, memcheck on candle's GPU twins, the wgmma tests (the role
# split), racecheck on the GEMM example. Build here, carry the folder:
#
#   scripts/install-candle-cuda.sh && (source .tools/cuda13/env.sh &&
#     cargo test --release --no-run -p tile-kernel-candle --features cuda --test ops 2>&1 \
#       | sed -n 's/.*Executable .*(\(.*\))/\1/p' | xargs -I{} cp {} gpu-bin/candle_ops &&
#     cargo build --release -p tile-kernel-candle --features cuda --example llama_block &&
#     cp "$CARGO_TARGET_DIR"/release/examples/llama_block gpu-bin/candle_llama_block)
#   for t in tensor_copies warpgroup_mma multicast; do cargo test --release --no-run --test $t 2>&1 \
#     | sed -n 's/.*Executable .*(\(.*\))/\1/p' | xargs -I{} cp {} gpu-bin/$t; done
#   cargo build --release --example gemm_sm90 && cp target/release/examples/gemm_sm90 gpu-bin/
#   cp scripts/gemm_sm90_torch.py scripts/candle-gpu.sh scripts/gpu-pending.sh gpu-bin/
#   strip gpu-bin/*_ops gpu-bin/candle_llama_block gpu-bin/tensor_copies gpu-bin/warpgroup_mma gpu-bin/multicast gpu-bin/gemm_sm90
#   mkdir -p gpu-exp && tar cJf gpu-exp/bins.tar.xz gpu-bin      # about 11 MB
#
# and run `tar xJf gpu-exp/bins.tar.xz && bash gpu-bin/gpu-pending.sh` with
# carry ["gpu-exp"]. Each step has its own timeout, the most important first.
set -u
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
export TILE_KERNEL_PTXAS=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas)
echo "== multicast"; TILE_KERNEL_REQUIRE_GPU=1 timeout 60 ./multicast --include-ignored 2>&1 | tail -6
for tool in memcheck racecheck synccheck; do
  echo "== $tool multicast"; timeout 60 compute-sanitizer --tool $tool ./multicast --include-ignored on_gpu 2>&1 | tail -3
done
echo "== tensor_copies"; TILE_KERNEL_REQUIRE_GPU=1 timeout 60 ./tensor_copies --include-ignored 2>&1 | tail -4
echo "== candle"; BIN=. timeout 120 bash ./candle-gpu.sh 2>&1 | tail -40
echo "== gemm_sm90"; timeout 240 ./gemm_sm90 2>&1 | tail -70
echo "== torch"; timeout 60 python3 gemm_sm90_torch.py 2>&1 | tail -8
for lib in libcublas.so.13 libcurand.so.10 libnvrtc.so.13 libcudart.so.13; do
  dir=$(find /opt /usr/local /usr/lib -name "$lib" -path '*nvidia*' 2>/dev/null | head -n 1 | xargs -r dirname)
  [ -n "$dir" ] && export LD_LIBRARY_PATH="$dir:${LD_LIBRARY_PATH:-}"
done
echo "== memcheck candle on_gpu"; timeout 90 compute-sanitizer --tool memcheck ./candle_ops --include-ignored on_gpu 2>&1 | tail -5
echo "== warpgroup_mma"; TILE_KERNEL_REQUIRE_GPU=1 timeout 120 ./warpgroup_mma --include-ignored 2>&1 | tail -8
echo "== racecheck gemm"; timeout 90 compute-sanitizer --tool racecheck ./gemm_sm90 130 200 96 2>&1 | tail -4
