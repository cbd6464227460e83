#!/usr/bin/env bash
# The GPU query's per-read results do not depend on how its database is
# sharded: `metawarp query` with 1, 2, 3 and 4 shards on one GPU writes
# per-read output, Kraken output and report byte-identical to the CPU's, on
# test_data and (when present) on the refs138 subset with the art_mock pairs;
# a device list naming a GPU that does not exist is a clear error.
#
#   check_shards.sh METAWARP TEST_DATA_DIR SHARED_DATA_DIR WORK_DIR
#
# Exits 77 (ctest: skipped) when there is no GPU.
set -euo pipefail
source "$(dirname "$0")/gpu_check_lib.sh"
mw=$1 test_data=$2 data=${METAWARP_SHARED_DATA:-$3} work=$4
if ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIPPED: no usable CUDA device"; exit 77; fi
rm -rf "$work" && mkdir -p "$work"

check() {  # name, genomes, taxonomy, seqid map, R1, R2
  local name=$1 genomes=$2 taxonomy=$3 map=$4 r1=$5 r2=$6
  local db=$work/$name.mwdb
  "$mw" build "$db" "$genomes" --taxonomy "$taxonomy" --seqid2taxid "$map" --device cpu -q
  query() {  # output name, then options
    local out=$work/$name.$1; shift
    "$mw" query "$db" "$r1" "$r2" -o "$out.tsv" --kraken-output "$out.kraken" \
      --report "$out.report" --top-hits -q "$@"
    cat "$out.tsv" "$out.kraken" "$out.report" >"$out.all"
  }
  query cpu --device cpu --threads 4
  for shards in 1 2 3 4; do
    query gpu$shards --device gpu --shards-per-gpu "$shards" --threads 4 --batch-size 777
    cmp "$work/$name.cpu.all" "$work/$name.gpu$shards.all"
    echo "$name: GPU with $shards shards == CPU ($(wc -l <"$work/$name.cpu.tsv") lines)"
  done
  query gpus --device gpu --gpus 0, --shards-per-gpu 3
  cmp "$work/$name.cpu.all" "$work/$name.gpus.all"
  "$mw" query "$db" "$r1" "$r2" --device gpu --shards-per-gpu 4 -v -o "$work/$name.v.tsv" 2>&1 |
    grep "GPU database in 4 shards"
  "$mw" info "$db" | grep "GPU query"
}

check test_data "$test_data/genomes" "$test_data/taxonomy" "$test_data/seqid2taxid.map" \
  "$test_data/reads_R1.fq" "$test_data/reads_R2.fq"

# A device list naming a GPU that does not exist: exit 1, the GPU named.
set +e
message=$("$mw" query "$work/test_data.mwdb" "$test_data/reads_R1.fq" --device gpu --gpus 0,63 \
  -o "$work/missing.tsv" 2>&1)
status=$?
set -e
echo "$message"
[ "$status" -eq 1 ]
grep -q "GPU 63 requested" <<<"$message"
[ ! -e "$work/missing.tsv" ]

check_refs138_art_mock
rm -rf "$work"
