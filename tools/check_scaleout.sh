#!/usr/bin/env bash
# Issue 17's equality runs: every data set is built by the CPU and by the GPUs
# in each layout (GPUs x shards per GPU), and classified by the CPU and by the
# GPUs in each layout; every database must be byte-identical to the CPU's, and
# every query's per-read output, Kraken output and report byte-identical to
# the CPU query's. Queries load the CPU-built database, which equals each
# GPU-built one, so "built on N GPUs, loaded onto M" is every pair of layouts.
#
#   tools/check_scaleout.sh METAWARP WORK_DIR GPUS [SHARED_DATA_DIR] [GENERATE_SYNTHETIC]
#
# GPUS: how many GPUs to use. With 1, the layouts are 1, 2, 4 and 8 shards on
# GPU 0 (the same split, the same exchange code paths but peer copies in place
# of NCCL); with N > 1: 1, 2, 4, 8 GPUs (up to N) with one shard each, and N
# GPUs with 2 shards each. Data sets: test_data (next to this script), refs138
# + art_mock (SHARED_DATA_DIR, when present) and a synthetic set made by
# GENERATE_SYNTHETIC (SYNTH_BASES, default 300e6, and SYNTH_PAIRS, default
# 500000), when given. Prints one line per comparison and the wall time of
# each step; exits 1 at the first difference.
set -euo pipefail
mw=$1 work=$2 gpus=$3 data=${4:-} generate=${5:-}
threads=${THREADS:-$(nproc)}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

layouts=()  # "gpu list:shards per gpu"
if [ "$gpus" -eq 1 ]; then
  for s in 1 2 4 8; do layouts+=("0:$s"); done
else
  for g in 1 2 4 8; do
    [ "$g" -le "$gpus" ] || continue
    layouts+=("$(seq -s, 0 $((g - 1))):1")
  done
  layouts+=("$(seq -s, 0 $((gpus - 1))):2")
fi
echo "layouts (GPUs:shards per GPU): ${layouts[*]}"
nvidia-smi topo -m 2>/dev/null || true

check() {  # name, genomes, taxonomy, seqid map, R1, R2
  local name=$1 genomes=$2 taxonomy=$3 map=$4 r1=$5 r2=$6
  local d=$work/$name t0
  rm -rf "$d" && mkdir -p "$d"
  local args=(--taxonomy "$taxonomy" --seqid2taxid "$map" -t "$threads" -q)
  t0=$(now)
  "$mw" build "$d/cpu.mwdb" "$genomes" "${args[@]}" --device cpu
  echo "$name: CPU build $(since "$t0") s, $(stat -c %s "$d/cpu.mwdb") bytes"
  for layout in "${layouts[@]}"; do
    local list=${layout%:*} shards=${layout#*:}
    t0=$(now)
    "$mw" build "$d/gpu.mwdb" "$genomes" "${args[@]}" --device gpu --gpus "$list," \
      --shards-per-gpu "$shards"
    local wall
    wall=$(since "$t0")
    cmp "$d/cpu.mwdb" "$d/gpu.mwdb"
    echo "$name: built on GPUs $list x $shards shards ($wall s) == CPU build"
    rm "$d/gpu.mwdb"
  done
  query() {  # output name, then options
    local out=$d/$1 t0
    shift
    t0=$(now)
    "$mw" query "$d/cpu.mwdb" "$r1" "$r2" -o "$out.tsv" --kraken-output "$out.kraken" \
      --report "$out.report" -t "$threads" -q "$@"
    query_wall=$(since "$t0")
    cat "$out.tsv" "$out.kraken" "$out.report" >"$out.all"
    rm "$out.tsv" "$out.kraken" "$out.report"
  }
  query cpu --device cpu
  echo "$name: CPU query $query_wall s, $(grep -c . "$d/cpu.all") lines of output"
  for layout in "${layouts[@]}"; do
    local list=${layout%:*} shards=${layout#*:}
    query gpu --device gpu --gpus "$list," --shards-per-gpu "$shards"
    cmp "$d/cpu.all" "$d/gpu.all"
    echo "$name: classified on GPUs $list x $shards shards ($query_wall s) == CPU query"
  done
  rm -rf "$d"
}

check test_data "$here/../test_data/genomes" "$here/../test_data/taxonomy" \
  "$here/../test_data/seqid2taxid.map" "$here/../test_data/reads_R1.fq" \
  "$here/../test_data/reads_R2.fq"

refs=$data/refs138 reads=$data/reads/simulated
if [ -n "$data" ] && [ -e "$refs/genomes" ] && [ -e "$reads/art_mock_R1.fq.gz" ]; then
  check refs138 "$refs/genomes" "$refs/taxonomy/subset" "$refs/seqid2taxid.map" \
    "$reads/art_mock_R1.fq.gz" "$reads/art_mock_R2.fq.gz"
else
  echo "refs138 / art_mock: not given or absent, not checked"
fi

if [ -n "$generate" ]; then
  s=$work/synthetic-set  # not $work/synthetic: check() makes that afresh
  t0=$(now)
  rm -rf "$s"
  "$generate" -o "$s" --seed 17 --total-bases "${SYNTH_BASES:-300e6}" --genome-length 4e6 \
    --read-pairs "${SYNTH_PAIRS:-500000}" -q
  echo "synthetic: generated in $(since "$t0") s"
  check synthetic "$s/genomes" "$s/taxonomy" "$s/seqid2taxid.map" "$s/reads_R1.fq" \
    "$s/reads_R2.fq"
  rm -rf "$s"
else
  echo "synthetic: no generator given, not checked"
fi
echo "all layouts equal"
