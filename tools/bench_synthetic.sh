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
# READ_REPEAT=R (default 1) generates READ_PAIRS/R pairs and writes them R
# times over, which saves most of the generation time; the classifier treats
# every pair on its own, so repeats cost it as much as new pairs.
# Disk: the genomes, the reads (2 x ~330 bytes per pair) and two databases
# (compared byte for byte, then the GPU one is deleted), about 5.5x
# TOTAL_BASES bytes. DEVICES (default "gpu cpu") chooses the executors.
set -euo pipefail
devices=${DEVICES:-gpu cpu}
repeat=${READ_REPEAT:-1}
bin=$1 work=$2 bases=${3:-10e9} pairs=${4:-20e6} threads=${5:-$(nproc)} step=${6:-all}
mkdir -p "$work"
syn=$work/synthetic

elapsed() { awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $1}"; }

if [ "$step" = all ] || [ "$step" = generate ]; then
  rm -rf "$syn"
  t0=$(date +%s.%N)
  generated=$(awk "BEGIN{printf \"%d\", $pairs / $repeat}")
  "$bin/generate_synthetic" -o "$syn" --seed 11 --total-bases "$bases" --genome-length 4e6 \
    --read-pairs "$generated" -q
  if [ "$repeat" -gt 1 ]; then
    for mate in 1 2; do
      mv "$syn/reads_R$mate.fq" "$syn/once_R$mate.fq"
      for _ in $(seq "$repeat"); do cat "$syn/once_R$mate.fq"; done >"$syn/reads_R$mate.fq"
      rm "$syn/once_R$mate.fq"
    done
  fi
  echo "generated $(du -sh "$syn/genomes" | cut -f1) of genomes and $generated pairs" \
       "(written $repeat times) in $(elapsed "$t0") s"
fi

if [ "$step" = all ] || [ "$step" = build ]; then
  for device in $devices; do
    t0=$(date +%s.%N)
    "$bin/metawarp" build "$work/$device.mwdb" "$syn/genomes" --taxonomy "$syn/taxonomy" \
      --seqid2taxid "$syn/seqid2taxid.map" --device "$device" --threads "$threads" --verbose \
      2>"$work/$device.build.log"
    grep -E "^build: (setup|read|GPU|[0-9]+ files)" "$work/$device.build.log" | sed "s/^/  [$device] /"
    echo "  [$device] wall $(elapsed "$t0") s"
  done
  if [ -f "$work/gpu.mwdb" ] && [ -f "$work/cpu.mwdb" ]; then
    if cmp -s "$work/gpu.mwdb" "$work/cpu.mwdb"; then
      echo "  CPU and GPU databases are byte-identical ($(stat -c %s "$work/cpu.mwdb") bytes)"
    else
      echo "  CPU and GPU databases DIFFER"
    fi
    rm "$work/gpu.mwdb"
  fi
fi

if [ "$step" = all ] || [ "$step" = query ]; then
  db=$work/cpu.mwdb
  [ -f "$db" ] || db=$work/gpu.mwdb
  for device in $devices; do
    t0=$(date +%s.%N)
    "$bin/metawarp" query "$db" "$syn/reads_R1.fq" "$syn/reads_R2.fq" \
      --threads "$threads" --device "$device" --verbose -o "$work/$device.tsv" 2>&1 | sed "s/^/  [$device] /"
    echo "  [$device] wall $(elapsed "$t0") s (whole process: start-up, load, query, exit)"
  done
  if [ -f "$work/gpu.tsv" ] && [ -f "$work/cpu.tsv" ]; then
    cmp "$work/cpu.tsv" "$work/gpu.tsv" && echo "  CPU and GPU per-read outputs are identical"
  fi
fi
