#!/usr/bin/env bash
# The library as another project sees it: configure metawarp alone (no
# application dependencies), `cmake --install` it into a fresh prefix, then
#  - every installed header, read as C++17, says "metawarp needs C++20"
#    (config.hpp's #error), nvcc -std=c++17 too;
#  - docs/examples/ (a project that sets no C++ or CUDA standard) builds
#    against the prefix: its C++ example always (and it runs), its CUDA
#    examples where nvcc is.
# With RUN_EXAMPLES=1 (a machine with a GPU) the CUDA examples run too; each
# exits non-zero on a wrong answer.
#   usage: tools/check_install.sh [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(realpath -m "${1:-build-install-check}")
rm -rf "$work"
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"
fail() {
  echo "check_install: FAIL: $*" >&2
  exit 1
}

cmake -S . -B "$work/library" -DMETAWARP_APP=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
cmake --install "$work/library" >/dev/null
include="$work/prefix/include"
test -f "$include/metawarp/tables/all.cuh"
test -f "$work/prefix/lib/cmake/metawarp/metawarpConfig.cmake" ||
  test -f "$work/prefix/lib64/cmake/metawarp/metawarpConfig.cmake"

# Below C++20: the message, from the preprocessor, for every header. A header
# that does not preprocess even as C++20 here (its CUDA headers are missing)
# is passed over.
cuda_includes=()
if command -v nvcc >/dev/null; then
  cuda_root=$(dirname "$(dirname "$(command -v nvcc)")")
  cuda_includes=(-I "$cuda_root/include" -I "$cuda_root/include/cccl")
fi
preprocess() {  # <standard> <header>: the compiler's messages; its status
  printf '#include "%s"\n' "$2" |
    c++ -std="$1" -E -I "$include" "${cuda_includes[@]}" -x c++ - 2>&1 >/dev/null
}
checked=0
while IFS= read -r header; do
  messages=$(preprocess c++17 "$header" || true)
  if grep -qF "metawarp needs C++20" <<<"$messages"; then
    checked=$((checked + 1))
  elif preprocess c++20 "$header" >/dev/null; then
    fail "$header read as C++17 does not say that metawarp needs C++20"
  fi
done < <(cd "$include" && find metawarp -name '*.hpp' -o -name '*.cuh' | sort)
[ "$checked" -gt 0 ] || fail "no header could be read"
if command -v nvcc >/dev/null; then
  printf '#include "metawarp/tables/all.cuh"\n' >"$work/cxx17.cu"
  nvcc -std=c++17 -I "$include" -c "$work/cxx17.cu" -o "$work/cxx17.o" 2>"$work/cxx17.log" &&
    fail "nvcc -std=c++17 compiled the library's headers"
  grep -qF "metawarp needs C++20" "$work/cxx17.log" ||
    fail "nvcc -std=c++17: no plain message: $(head -n 3 "$work/cxx17.log")"
fi
echo "check_install: below C++20, $checked headers say so in one line"

# docs/examples/: a consumer that sets no standard of its own.
cmake -S docs/examples -B "$work/examples" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/examples" -j "$(nproc)"
"$work/examples/host_map"
if ! command -v nvcc >/dev/null; then
  echo "check_install: installed library found by find_package; the C++ example built and run," \
    "the CUDA examples not built (no nvcc here)"
  exit 0
fi
for example in host_bulk device_kernel multi_value; do
  test -x "$work/examples/$example" || fail "the CUDA example $example was not built"
done
echo "check_install: installed library found by find_package; examples built (C++ and CUDA," \
  "no standard set by the project)"
if [ "${RUN_EXAMPLES:-0}" = 1 ]; then
  for example in host_bulk device_kernel multi_value; do "$work/examples/$example"; done
fi
