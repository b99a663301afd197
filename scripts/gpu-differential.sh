#!/usr/bin/env bash
# The GPU differential conformance harness, on the GPU machine: runs the
# `differential` test binary (tests/differential/) and the exhaustive
# conversion sweep (examples/sweep_conversions.rs), writing all output
# under $OUT (default: $BIN/diff-out). The GPU machine has no cargo: build
# the two binaries on the build machine into $BIN (default gpu-bin/, which
# git ignores), carry that folder and this script there:
#
#   mkdir -p gpu-bin
#   cargo test --release --no-run --test differential 2>&1 \
#     | sed -n 's/.*Executable .*(\(.*\))/\1/p' | xargs -I{} cp {} gpu-bin/differential
#   cargo build --release --example sweep_conversions
#   cp target/release/examples/sweep_conversions gpu-bin/
#
# Usage: scripts/gpu-differential.sh [STEP [ARGS...]]
#   quick (default)  differential + atomics + warp, then sweep-short
#   differential     every_form_matches_the_gpu_bit_for_bit (+ the value self-test)
#   atomics          same_address_atomics_match_the_gpu
#   warp             warp_collectives_match_the_gpu (shfl/vote/match/redux/elect/
#                    activemask/bar.warp.sync: 30 variants x 32768 rows; JSON
#                    differential.warp.json)
#   sweep-short      the sweep on 1 chunk (2^28 inputs, spread) a variant
#   sweep [ARGS...]  the full sweep; ARGS go to sweep_conversions: opcode
#                    patterns, --chunks K, --chunk-bits B. All 62 variants
#                    take longer than one 10-minute call: split them, e.g.
#                      gpu-differential.sh sweep .f16.f32   (scalar f16)
#                      gpu-differential.sh sweep .bf16.f32  (scalar bf16)
#                      gpu-differential.sh sweep x2.f32     (f16x2, bf16x2, e4m3x2, e5m2x2)
#                      gpu-differential.sh sweep tf32
# Environment for the differential test (see tests/differential/):
#   TILE_KERNEL_DIFF_FILTER=w1,w2  only variants whose opcode contains a word
#   TILE_KERNEL_DIFF_ROWS=N        rows of a non-memory variant (4096)
#   TILE_KERNEL_DIFF_WARP_ROWS=N   rows of a warp collective (32768)
#   TILE_KERNEL_DIFF_LAUNCH=runtime  one runtime Kernel per variant (slow)
# Every step runs under `timeout` (STEP_TIMEOUT seconds, default 560) so
# that its output comes back within the runner's 10-minute limit.
set -u
BIN=${BIN:-"$(dirname "$0")/../gpu-bin"}
cd "$BIN"
OUT=${OUT:-$PWD/diff-out}
mkdir -p "$OUT"
LIMIT=${STEP_TIMEOUT:-560}
status=0

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
nproc | sed 's/^/host cores: /'

# The lines of a test log worth seeing at once.
summarize() {
  grep -E "^== |usable legal variants|skipped:|^  [0-9]+ x |approximate forms|mismatching or failing|by instruction|^time:|FATAL|test result|^GPU|warning:" "$1" | head -80
  grep -A2 "panicked" "$1" | head -12
}

run_test() { # name, filter, json
  local log="$OUT/$1.txt"
  echo "== $1 (log: $log)"
  TILE_KERNEL_DIFF_OUT="$OUT/$3" timeout "$LIMIT" ./differential --include-ignored \
    --test-threads=1 --nocapture --exact $2 >"$log" 2>&1
  local rc=$?
  summarize "$log"
  # A binary built before a test existed runs nothing and exits 0.
  if grep -q "^running 0 tests" "$log"; then
    echo "FATAL: ./differential has no test named $2: rebuild and copy it (see the top of this script)"
    rc=1
  fi
  echo "-- $1: exit $rc"
  [ $rc -eq 0 ] || status=1
}

differential() {
  run_test differential "every_form_matches_the_gpu_bit_for_bit sweep_values_are_what_they_claim" differential.json
}

atomics() {
  run_test atomics same_address_atomics_match_the_gpu differential.json
}

warp() {
  run_test warp warp_collectives_match_the_gpu differential.json
}

sweep() { # name, args...
  local name=$1
  shift
  local log="$OUT/$name.txt"
  echo "== $name $* (log: $log)"
  timeout "$LIMIT" ./sweep_conversions "$@" >"$log" 2>&1
  local rc=$?
  grep -vE ": [0-9]+ inputs checked, 0 mismatches" "$log" | head -150
  echo "-- $name: exit $rc"
  [ $rc -eq 0 ] || status=1
}

step=${1:-quick}
[ $# -gt 0 ] && shift
case "$step" in
  quick)
    differential
    atomics
    warp
    sweep sweep-short --chunks 1
    ;;
  differential) differential ;;
  atomics) atomics ;;
  warp) warp ;;
  sweep-short) sweep sweep-short --chunks 1 "$@" ;;
  sweep) sweep "sweep$(printf -- '-%s' "$@" | tr -c 'A-Za-z0-9._-' '_')" "$@" ;;
  *)
    echo "unknown step '$step' (quick, differential, atomics, warp, sweep-short, sweep [ARGS])" >&2
    exit 2
    ;;
esac
exit $status
