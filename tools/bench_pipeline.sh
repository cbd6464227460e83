#!/usr/bin/env bash
# End-to-end throughput of `metawarp build` and `metawarp query`, CPU against
# GPU in the same run, with each command's own stage breakdown.
#
#   tools/bench_pipeline.sh METAWARP REFS_DIR R1.fq R2.fq [THREADS]
#
# REFS_DIR: reference FASTA (plain or .gz); R1/R2: uncompressed FASTQ pairs.
# Prints MB of reference input per second (file bytes as parsed, i.e. after
# decompression) and read pairs per second, and checks that the CPU and GPU
# databases are byte-identical. BUILD_ARGS adds build options (e.g. --taxonomy DIR
# --seqid2taxid FILE), BENCH_DIR keeps the outputs.
set -euo pipefail
mw=$1 refs=$2 r1=$3 r2=$4 threads=${5:-$(nproc)}
work=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$work"
echo "metawarp: $mw; references: $refs ($(du -sh "$refs" | cut -f1) on disk); threads: $threads"
gpu=yes
"$mw" build --help >/dev/null
nvidia-smi -L >/dev/null 2>&1 || gpu=no

run_build() {  # device
  local t0 t1
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$mw" build "$work/$1.mwdb" "$refs" ${BUILD_ARGS:-} --device "$1" --threads "$threads" --verbose 2>"$work/$1.build.log"
  t1=$(date +%s.%N)
  grep -E "^build: (setup|read|GPU|[0-9]+ files)" "$work/$1.build.log" | sed "s/^/  [$1] /"
  echo "  [$1] wall $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s (whole process: start-up, build, write)"
}

echo "== build"
run_build cpu
if [ $gpu = yes ]; then
  run_build gpu
  cmp "$work/cpu.mwdb" "$work/gpu.mwdb" && echo "  CPU and GPU databases are byte-identical"
fi

echo "== query ($(($(wc -l <"$r1") / 4)) pairs)"
for device in cpu $([ $gpu = yes ] && echo gpu); do
  "$mw" query "$work/cpu.mwdb" "$r1" "$r2" --threads "$threads" --verbose -o "$work/$device.tsv" \
    $( "$mw" query --help | grep -q -- "--device" && echo "--device $device") 2>&1 \
    | sed "s/^/  [$device] /"
done
if [ $gpu = yes ] && [ -f "$work/gpu.tsv" ]; then
  cmp "$work/cpu.tsv" "$work/gpu.tsv" && echo "  CPU and GPU per-read outputs are identical"
fi
