#!/usr/bin/env bash
# Installs the pinned ptxas (from NVIDIA's `nvidia-cuda-nvcc-cu12` PyPI wheel) into
# the project-local `.tools/` folder. Tests find it there (or via $TILE_KERNEL_PTXAS).
# ptxas is a plain x86-64 binary: it needs no GPU and no CUDA driver.
set -euo pipefail
VERSION="12.9.86"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/.tools/nvcc-$VERSION"
PTXAS="$DEST/nvidia/cuda_nvcc/bin/ptxas"
if [ -x "$PTXAS" ]; then
  echo "ptxas $VERSION already installed: $PTXAS"
  exit 0
fi
python3 -m pip install --quiet --disable-pip-version-check --no-deps \
  --target "$DEST" "nvidia-cuda-nvcc-cu12==$VERSION"
chmod +x "$PTXAS"
"$PTXAS" --version | tail -n 1
echo "installed: $PTXAS"
