#!/usr/bin/env bash
# GPU == CPU on real data, through the command line: `metawarp build` of the
# refs138 genomes gives byte-identical databases on the CPU and on the GPU
# (both table kinds), and `metawarp query` of the art_mock read pairs gives
# byte-identical per-read output, Kraken output and report on both, for
# several thread counts and batch sizes.
#
#   check_real_data.sh METAWARP DATA_DIR WORK_DIR
#
# DATA_DIR is ../shared/data's layout (refs138/, reads/simulated/); the
# environment variable METAWARP_SHARED_DATA overrides it. Exits 77
# (ctest: skipped) with the reason when there is no GPU or no such data.
set -euo pipefail
mw=$1 data=${METAWARP_SHARED_DATA:-$2} work=$3
refs=$data/refs138
r1=$data/reads/simulated/art_mock_R1.fq.gz r2=$data/reads/simulated/art_mock_R2.fq.gz
if ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIPPED: no usable CUDA device"; exit 77; fi
for p in "$refs/genomes" "$refs/taxonomy/subset" "$refs/seqid2taxid.map" "$r1" "$r2"; do
  if [ ! -e "$p" ]; then echo "SKIPPED: $p is absent (set METAWARP_SHARED_DATA)"; exit 77; fi
done
rm -rf "$work" && mkdir -p "$work"
echo "references: $(ls "$refs/genomes" | wc -l) files in $refs/genomes"

build() {  # name, then options
  local name=$1; shift
  "$mw" build "$work/$name.mwdb" "$refs/genomes" --taxonomy "$refs/taxonomy/subset" \
    --seqid2taxid "$refs/seqid2taxid.map" -q "$@"
}
build cpu --device cpu --threads 4
for table in bucket-list multi-value; do
  for batch in 67108864 1000000; do
    build gpu --device gpu --table "$table" --batch-size "$batch" --threads 4
    cmp "$work/cpu.mwdb" "$work/gpu.mwdb"
    echo "build: GPU ($table, batch $batch bases) == CPU, $(stat -c %s "$work/cpu.mwdb") bytes"
  done
done

query() {  # name, then options
  local name=$1; shift
  "$mw" query "$work/cpu.mwdb" "$r1" "$r2" -o "$work/$name.tsv" --kraken-output "$work/$name.kraken" \
    --report "$work/$name.report" --top-hits -q "$@"
  cat "$work/$name.tsv" "$work/$name.kraken" "$work/$name.report" >"$work/$name.all"
}
query cpu --device cpu --threads 4
classified=$(awk -F'\t' 'NR > 1 && $3 != 0' "$work/cpu.tsv" | wc -l)
echo "query: the CPU classified $classified of $(($(wc -l <"$work/cpu.tsv") - 1)) pairs"
[ "$classified" -gt 1000 ]
for setting in "--threads 1 --batch-size 4096" "--threads 8 --batch-size 777" "--threads 16 --gpu-lanes 1"; do
  # shellcheck disable=SC2086
  query gpu --device gpu $setting
  cmp "$work/cpu.all" "$work/gpu.all"
  echo "query: GPU ($setting) == CPU (per-read, Kraken output, report)"
done
rm -rf "$work"
