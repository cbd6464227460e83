#!/usr/bin/env bash
# Builds everything (GPU code too, when nvcc is present) and runs all tests.
# GPU tests (ctest label `gpu`) are reported as skipped where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"
bash tools/install-deps.sh
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "note: the GPU tests (ctest label gpu) were skipped: no usable CUDA device on this machine"
fi
