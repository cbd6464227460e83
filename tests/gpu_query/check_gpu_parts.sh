#!/usr/bin/env bash
# The partitioned query on the GPU: `metawarp query --device gpu` with
# --partitions 1, 2, 3 (one and two shards per GPU) and with many parts and
# super-batches writes per-read output, Kraken output, report and
# abundance table byte-identical to the CPU's whole-database query, on
# test_data (pairs and single reads) and (when present) on the refs138 subset
# with the art_mock pairs; -v says where the GPU's time went.
#
#   check_gpu_parts.sh METAWARP TEST_DATA_DIR SHARED_DATA_DIR WORK_DIR
#
# Exits 77 (ctest: skipped) when there is no GPU.
set -euo pipefail
source "$(dirname "$0")/gpu_check_lib.sh"
mw=$1 test_data=$2 data=${METAWARP_SHARED_DATA:-$3} work=$4
if ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIPPED: no usable CUDA device"; exit 77; fi
rm -rf "$work" && mkdir -p "$work"

check() {  # name, genomes, taxonomy, seqid map, reads (one or two files)
  local name=$1 genomes=$2 taxonomy=$3 map=$4; shift 4
  local reads=("$@")
  local db=$work/$name.mwdb
  "$mw" build "$db" "$genomes" --taxonomy "$taxonomy" --seqid2taxid "$map" --device cpu -q
  query() {  # output name, then options
    local out=$work/$name.$1; shift
    "$mw" query "$db" "${reads[@]}" -o "$out.tsv" --kraken-output "$out.kraken" \
      --report "$out.report" --abundance "$out.abundance" --top-hits -q "$@"
    cat "$out.tsv" "$out.kraken" "$out.report" "$out.abundance" >"$out.all"
  }
  query cpu --device cpu --threads 4
  for parts in 1 2 3; do
    for shards in 1 2; do
      query "gpu$parts.$shards" --device gpu --partitions "$parts" --shards-per-gpu "$shards" \
        --threads 4
      cmp "$work/$name.cpu.all" "$work/$name.gpu$parts.$shards.all"
      echo "$name: GPU with $parts parts, $shards shards per GPU == CPU whole database" \
        "($(wc -l <"$work/$name.cpu.tsv") lines)"
    done
  done
  # Many parts and super-batches, odd batches; --gpus with one device.
  query gpumany --device gpu --gpus 0, --partitions 12 --hit-memory 65536 \
    --batch-size 333 --threads 3
  cmp "$work/$name.cpu.all" "$work/$name.gpumany.all"
  echo "$name: GPU with --partitions 12 --hit-memory 65536 == CPU whole database"
  "$mw" query "$db" "${reads[@]}" --device gpu --partitions 2 -v -o "$work/$name.v.tsv" 2>&1 |
    grep "query: GPU parts on GPU 0"
}

check test_data "$test_data/genomes" "$test_data/taxonomy" "$test_data/seqid2taxid.map" \
  "$test_data/reads_R1.fq" "$test_data/reads_R2.fq"
check test_data_single "$test_data/genomes" "$test_data/taxonomy" "$test_data/seqid2taxid.map" \
  "$test_data/reads_R1.fq"

check_refs138_art_mock
rm -rf "$work"
