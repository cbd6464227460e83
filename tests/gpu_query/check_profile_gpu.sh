#!/usr/bin/env bash
# profile-db on the GPU (1 and 3 shards) writes the CPU's profile byte for
# byte, for single reads, pairs and pairs with --error-rate, on test_data and
# (when present) refs138.
#
#   check_profile_gpu.sh METAWARP TEST_DATA_DIR SHARED_DATA_DIR WORK_DIR
#
# Exits 77 (ctest: skipped) when there is no GPU.
set -euo pipefail
mw=$1 test_data=$2 data=${METAWARP_SHARED_DATA:-$3} work=$4
if ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIPPED: no usable CUDA device"; exit 77; fi
rm -rf "$work" && mkdir -p "$work"

threads=$(nproc)
check() {  # name, genomes, taxonomy, seqid map, stride
  local db=$work/$1.mwdb
  "$mw" build "$db" "$2" --taxonomy "$3" --seqid2taxid "$4" --device cpu -q
  for layout in "--read-length 150 --stride $5" "--read-length 150 --paired --stride $5" \
    "--read-length 150 --paired --stride $5 --error-rate 0.01"; do
    # shellcheck disable=SC2086
    "$mw" profile-db "$db" $layout --device cpu -t "$threads" -q
    local profile
    profile=$(ls "$db".profile-L*)
    mv "$profile" "$work/cpu.profile"
    for shards in 1 3; do
      # shellcheck disable=SC2086
      "$mw" profile-db "$db" $layout --device gpu --shards-per-gpu "$shards" -t "$threads" -q
      cmp "$work/cpu.profile" "$profile"
      echo "$1 ($layout): GPU profile with $shards shards == CPU's"
      rm "$profile"
    done
  done
}

# Stride 7 on the small test_data; the default 40 on refs138 (6.5 M pairs
# per layout, about 100 CPU seconds).
check test_data "$test_data/genomes" "$test_data/taxonomy" "$test_data/seqid2taxid.map" 7
if [ -d "$data/refs138" ]; then
  check refs138 "$data/refs138/genomes" "$data/refs138/taxonomy/subset" \
    "$data/refs138/seqid2taxid.map" 40
fi
