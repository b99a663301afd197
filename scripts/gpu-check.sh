#!/usr/bin/env bash
# The GPU checks of the test suite and the examples, on the GPU machine:
# every GPU test (the `NAME::on_gpu` twins and the other ignored tests),
# every example (each must print its `OK` line), compute-sanitizer
# (memcheck, racecheck, synccheck) over the examples that ship kernels and
# the `on_gpu` twins of tests/scopes.rs (shared memory, barriers),
# tests/guards.rs (compiler-added guards), tests/races.rs and tests/values.rs,
# and the benchmark with PyTorch's rows. The GPU machine has no cargo:
# build here into $BIN (default gpu-bin/, which git ignores) and carry it:
#
#   mkdir -p gpu-bin
#   for t in gpu_kernels scale predicates table_forms scopes guards races values broadcast gather ewise kernel_functions variants async_copies mbarriers bulk_copies tensor_copies async_stores bulk_reductions clusters distributed_shared warpgroup_mma permute multicast tensor_cores differential; do
#     cargo test --release --no-run --test $t 2>&1 \
#       | sed -n 's/.*Executable .*(\(.*\))/\1/p' | xargs -I{} cp {} gpu-bin/$t
#   done
#   for t in gpu engine; do
#     cargo test --release --no-run -p tile-kernel-runtime --test $t 2>&1 \
#       | sed -n 's/.*Executable .*(\(.*\))/\1/p' | xargs -I{} cp {} gpu-bin/runtime_$t
#   done
#   cargo build --release --examples
#   for e in narrow_pairs widen_pairs pack_fp8 engine ptx_only_launch convert \
#            quantize_e4m3 row_sumsq histogram embedding softmax layer_norm rms_norm \
#            quantize_per_token transpose scale_rows_async bench launch_overhead gemm_sm80 gemm_sm90; do
#     cp target/release/examples/$e gpu-bin/
#   done
#   cp scripts/bench_torch.py scripts/bincount.py scripts/embedding_torch.py scripts/*_ref.py \
#      scripts/gemm_sm90_torch.py gpu-bin/
#
# The binaries are about 130 MB; stripped and packed (`strip gpu-bin/*;
# tar cJf gpu-exp/bin.tar.xz -C gpu-bin .`, about 7 MB) they fit the GPU
# machine's carry limit, unpacked there with `tar xJf`.
#
# Usage: scripts/gpu-check.sh [tests|examples|sanitize|bench]... (all by default)
set -u
BIN=${BIN:-"$(dirname "$0")/../gpu-bin"}
cd "$BIN"
export TILE_KERNEL_PTXAS=${TILE_KERNEL_PTXAS:-$(command -v ptxas || ls /usr/local/cuda/bin/ptxas)}
status=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

tests() {
  for t in gpu_kernels scale predicates table_forms scopes guards races values broadcast gather ewise kernel_functions variants async_copies mbarriers bulk_copies tensor_copies async_stores bulk_reductions clusters distributed_shared warpgroup_mma permute multicast tensor_cores differential runtime_gpu runtime_engine; do
    [ -x "./$t" ] || { echo "== $t: missing (build it, see the top of this script)"; status=1; continue; }
    echo "== $t"
    # tensors_of_another_gpu needs a second GPU; the interpreter twins of
    # the warp-specialised kernels are ignored for the interpreter's sake
    # (it cannot run them yet: docs/async-copies.md, "Roles").
    ./$t --include-ignored --test-threads=1 --skip tensors_of_another_gpu \
      --skip a_ring_with_a_producer_warp::on_cpu \
      --skip a_ring_with_a_synced_producer_warp::on_cpu \
      --skip a_producer_warpgroup_feeds_two_consumers::on_cpu >"/tmp/$t.log" 2>&1 || status=1
    grep -E "^test result|FAILED|panicked" "/tmp/$t.log" | head -20
  done
}

examples() {
  for e in narrow_pairs widen_pairs pack_fp8 engine ptx_only_launch convert quantize_e4m3 row_sumsq histogram embedding \
           softmax layer_norm rms_norm quantize_per_token transpose scale_rows_async gemm_sm80 gemm_sm90; do
    echo "== $e"
    ./$e >"/tmp/$e.log" 2>&1 || status=1
    grep -E "^OK|panicked|Error" "/tmp/$e.log" | head -5
    grep -q "^OK" "/tmp/$e.log" || { echo "no OK line"; status=1; }
  done
}

sanitize() {
  for tool in memcheck racecheck synccheck; do
    for e in "quantize_e4m3 200000" "row_sumsq 512" "convert 100000" engine \
             "softmax 16 1000" "softmax 4 20000" "layer_norm 16 1000" "rms_norm 16 1000" \
             "quantize_per_token 16 1000" "transpose 300" "scale_rows_async 64 8200" \
             "gemm_sm80 257 131 72" "gemm_sm90 257 131 72" \
             "scopes --include-ignored on_gpu --test-threads=1" \
             "guards --include-ignored on_gpu --test-threads=1" \
             "races --include-ignored on_gpu --test-threads=1" \
             "values --include-ignored on_gpu --test-threads=1" \
             "broadcast --include-ignored on_gpu --test-threads=1" \
             "gather --include-ignored on_gpu --test-threads=1" \
             "ewise --include-ignored on_gpu --test-threads=1" \
             "kernel_functions --include-ignored on_gpu --test-threads=1" \
             "mbarriers --include-ignored on_gpu --test-threads=1" \
             "bulk_copies --include-ignored on_gpu --test-threads=1" \
             "tensor_copies --include-ignored on_gpu --test-threads=1" \
             "async_stores --include-ignored on_gpu --test-threads=1" \
             "bulk_reductions --include-ignored on_gpu --test-threads=1" \
             "clusters --include-ignored on_gpu --test-threads=1" \
             "distributed_shared --include-ignored on_gpu --test-threads=1"; do
      echo "== $tool $e"
      # shellcheck disable=SC2086
      compute-sanitizer --tool $tool --error-exitcode 9 ./$e >"/tmp/san.log" 2>&1 || status=1
      grep -E "SUMMARY|^OK" "/tmp/san.log" | head -3
    done
  done
}

bench() {
  echo "== bench"; ./bench || status=1
  echo "== bench_torch"; python3 bench_torch.py || status=1
}

steps=${*:-tests examples sanitize bench}
for step in $steps; do
  $step
done
exit $status
