#!/usr/bin/env bash
# The large pipeline benchmark: a synthetic reference set of about TOTAL_BASES
# genome bases and READ_PAIRS read pairs, generated where it runs (too large to
# carry), then `build` and `query` on the GPU and on the CPU in the same run.
#
#   tools/bench_synthetic.sh BIN_DIR WORK_DIR [TOTAL_BASES] [READ_PAIRS] [THREADS] [STEP]
#
# BIN_DIR holds metawarp and generate_synthetic. Defaults: 10e9 bases, 20e6
# pairs, all cores. STEP (all | generate | build | query) runs one part, so
# that the parts fit separate time limits; WORK_DIR keeps the state between.
# Disk: the genomes, the reads (2 x ~330 bytes per pair) and one database at
# a time (the GPU database is compared with the CPU one by checksum, then
# deleted), i.e. about 4.5x TOTAL_BASES bytes. DEVICES (default "gpu cpu")
# chooses the executors.
set -euo pipefail
devices=${DEVICES:-gpu cpu}
bin=$1 work=$2 bases=${3:-10e9} pairs=${4:-20e6} threads=${5:-$(nproc)} step=${6:-all}
mkdir -p "$work"
syn=$work/synthetic

elapsed() { awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $1}"; }

if [ "$step" = all ] || [ "$step" = generate ]; then
  rm -rf "$syn"
  t0=$(date +%s.%N)
  "$bin/generate_synthetic" -o "$syn" --seed 11 --total-bases "$bases" --genome-length 4e6 \
    --read-pairs "$pairs" -q
  echo "generated $(du -sh "$syn/genomes" | cut -f1) of genomes and $pairs pairs in $(elapsed "$t0") s"
fi

if [ "$step" = all ] || [ "$step" = build ]; then
  for device in $devices; do
    t0=$(date +%s.%N)
    "$bin/metawarp" build "$work/$device.mwdb" "$syn/genomes" --taxonomy "$syn/taxonomy" \
      --seqid2taxid "$syn/seqid2taxid.map" --device "$device" --threads "$threads" \
      2>"$work/$device.build.log"
    grep -E "^build: (read|GPU|[0-9])" "$work/$device.build.log" | sed "s/^/  [$device] /"
    echo "  [$device] wall $(elapsed "$t0") s"
    md5sum "$work/$device.mwdb" | cut -d' ' -f1 >"$work/$device.md5"
    if [ "$device" = gpu ] && [[ $devices == *cpu* ]]; then rm "$work/gpu.mwdb"; fi
  done
  if [ -f "$work/gpu.md5" ] && [ -f "$work/cpu.md5" ]; then
    if cmp -s "$work/gpu.md5" "$work/cpu.md5"; then
      echo "  CPU and GPU databases are byte-identical (md5 $(cat "$work/cpu.md5"))"
    else
      echo "  CPU and GPU databases DIFFER"
    fi
  fi
fi

if [ "$step" = all ] || [ "$step" = query ]; then
  db=$work/cpu.mwdb
  [ -f "$db" ] || db=$work/gpu.mwdb
  for device in $devices; do
    "$bin/metawarp" query "$db" "$syn/reads_R1.fq" "$syn/reads_R2.fq" \
      --threads "$threads" --device "$device" -o "$work/$device.tsv" 2>&1 | sed "s/^/  [$device] /"
  done
  if [ -f "$work/gpu.tsv" ] && [ -f "$work/cpu.tsv" ]; then
    cmp "$work/cpu.tsv" "$work/gpu.tsv" && echo "  CPU and GPU per-read outputs are identical"
  fi
fi
