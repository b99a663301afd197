#!/usr/bin/env bash
# Runs every example in examples/ (release build) and fails unless each one
# exits successfully and prints a line starting with `OK`.
#
# The examples run their kernels on the CPU interpreter and check the
# results bit for bit: TILE_KERNEL_DEVICE defaults to `cpu` here, so the
# script checks the same thing on every machine (CI has no GPU). On a GPU
# machine, TILE_KERNEL_DEVICE=auto (or gpu) runs the GPU paths instead;
# there `bench` prints its bandwidth table and no OK line, so name the
# others. sweep_conversions takes its own arguments and is not run here (it
# is built, though). ptx_only_launch also runs in PTX-only mode
# (--no-default-features).
#
#   ./scripts/examples.sh            # all of them
#   ./scripts/examples.sh convert    # only the named ones
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export TILE_KERNEL_DEVICE="${TILE_KERNEL_DEVICE:-cpu}"

# Build first, so the per-example timings below are run times.
cargo build --release --examples
cargo build --release --no-default-features --example ptx_only_launch

if [ "$#" -gt 0 ]; then
  names=("$@")
else
  names=()
  for file in examples/*.rs; do
    name=$(basename "$file" .rs)
    [ "$name" = sweep_conversions ] && continue
    names+=("$name")
  done
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=()
start_all=$(date +%s.%N)

# run LABEL CARGO_ARGS..: runs one example, prints its OK line(s) and time.
run() {
  local label=$1
  shift
  local start end status=0
  start=$(date +%s.%N)
  cargo run -q --release "$@" >"$log" 2>&1 || status=$?
  end=$(date +%s.%N)
  local secs
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  if [ "$status" -eq 0 ] && grep -q '^OK' "$log"; then
    printf '%-34s %6ss  %s\n' "$label" "$secs" "$(grep '^OK' "$log" | head -n 1)"
  else
    printf '%-34s %6ss  FAILED (exit status %s, no OK line or an error)\n' "$label" "$secs" "$status"
    echo "---- last 40 lines of $label's output ----"
    tail -n 40 "$log"
    echo "----"
    failed+=("$label")
  fi
}

for name in "${names[@]}"; do
  run "$name" --example "$name"
  if [ "$name" = ptx_only_launch ]; then
    run "ptx_only_launch (PTX-only mode)" --no-default-features --example ptx_only_launch
  fi
done

total=$(awk -v a="$start_all" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
if [ "${#failed[@]}" -gt 0 ]; then
  echo "examples FAILED: ${failed[*]} (${total}s)" >&2
  exit 1
fi
echo "all ${#names[@]} examples printed OK on TILE_KERNEL_DEVICE=$TILE_KERNEL_DEVICE (${total}s after the build)"
