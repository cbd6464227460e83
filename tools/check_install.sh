#!/usr/bin/env bash
# The library as another project sees it: configure metawarp alone (no
# application dependencies), `cmake --install` it into a fresh prefix, and
# build docs/examples/ (a separate project using find_package(metawarp))
# against that prefix. With RUN_EXAMPLES=1 (a machine with a GPU) the
# examples run too; each exits non-zero on a wrong answer.
#   usage: tools/check_install.sh [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(realpath -m "${1:-build-install-check}")
rm -rf "$work"
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"

cmake -S . -B "$work/library" -DMETAWARP_APP=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
cmake --install "$work/library" >/dev/null
test -f "$work/prefix/include/metawarp/tables/all.cuh"
test -f "$work/prefix/lib/cmake/metawarp/metawarpConfig.cmake" ||
  test -f "$work/prefix/lib64/cmake/metawarp/metawarpConfig.cmake"

if ! command -v nvcc >/dev/null; then
  echo "check_install: library installed; examples not built (they are CUDA and no nvcc is here)"
  exit 0
fi
cmake -S docs/examples -B "$work/examples" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/examples" -j "$(nproc)"
echo "check_install: installed library found by find_package; examples built"
if [ "${RUN_EXAMPLES:-0}" = 1 ]; then
  for example in host_bulk device_kernel multi_value; do "$work/examples/$example"; done
fi
