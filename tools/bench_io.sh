#!/usr/bin/env bash
# Issue 13's table: what users wait for around the classifier itself (compressed
# reads, start-up and database load, the database write, several samples), for
# this build and, when given, an older metawarp binary in the same run, next to
# the host's own limits (zcat and one-core inflate, reading the page cache).
#
#   tools/bench_io.sh BUILD_DIR WORK_DIR [OLD_METAWARP] [STEP] [THREADS]
#
# BUILD_DIR holds metawarp and tools/{generate_synthetic,bench_inflate,
# bench_db_io}. STEP: small (1.37 M pairs against a 23-genome database, the
# reads also gzipped), large (LARGE_BASES of genomes, default 10e9, and 20 M
# pairs written as 2 M pairs 10 times), timeline (the small sample end to end,
# REPEATS runs, with when the load and the query ended, then the same through
# a `metawarp serve` holding the database: after small), or all.
# The data is generated in
# WORK_DIR (large: about 5.5 x LARGE_BASES bytes of disk); SMALL_BASES and
# SMALL_PAIRS shrink the small set for a trial run. DEVICE (default gpu) picks
# the executor. Every line printed is one measurement; the per-read
# outputs of the old and new binaries are compared byte for byte.
set -euo pipefail
build=$1 work=$2 old=${3:-} step=${4:-all} threads=${5:-$(nproc)}
device=${DEVICE:-gpu}
new=$build/metawarp
mkdir -p "$work"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.2f", n / s / 1e6 }'; }

# Reads a file once so that every binary finds it in the page cache.
warm() { cat "$@" >/dev/null; }

# run LABEL COMMAND...: runs it, prints its wall time and its own summary lines.
run() {
  local label=$1 t0 status=0
  shift
  t0=$(now)
  "$@" 2>"$work/last.log" || status=$?
  local wall
  wall=$(since "$t0")
  echo "$label: wall $wall s (process start to exit), status $status"
  grep -E "^(query|build): (loading|[0-9]+ (read|files)|sample|setup|stages|GPU)" "$work/last.log" \
    | sed "s/^/    /" || true
  [ "$status" -eq 0 ] || { tail -3 "$work/last.log"; return 1; }
  last_wall=$wall
}

# -v where the binary has it (the stage lines; older binaries printed them always).
verbose() { "$1" query --help 2>&1 | grep -q -- "--verbose" && echo -v || true; }

binaries() {  # the binaries to measure: "new" and, if given, "old"
  echo "new $new"
  [ -z "$old" ] || echo "old $old"
}

if [ "$step" = all ] || [ "$step" = small ]; then
  s=$work/small
  if [ ! -f "$s/reads_R2.fq.gz" ]; then
    rm -rf "$s"
    t0=$(now)
    "$build/tools/generate_synthetic" -o "$s" --seed 13 --total-bases "${SMALL_BASES:-92e6}" --genome-length 4e6 \
      --read-pairs "${SMALL_PAIRS:-1.37e6}" -q
    gzip -6 -c "$s/reads_R1.fq" >"$s/reads_R1.fq.gz" &
    gzip -6 -c "$s/reads_R2.fq" >"$s/reads_R2.fq.gz"
    wait
    echo "small set: $(ls "$s/genomes" | wc -l) genomes, $(($(wc -l <"$s/reads_R1.fq") / 4)) pairs, gzip -6; made in $(since "$t0") s"
  fi
  pairs=$(($(wc -l <"$s/reads_R1.fq") / 4))
  fq_bytes=$(stat -c %s "$s/reads_R1.fq")
  warm "$s/reads_R1.fq.gz" "$s/reads_R2.fq.gz" "$s/reads_R1.fq" "$s/reads_R2.fq"
  echo "== host reference lines (one mate file: $fq_bytes bytes of FASTQ)"
  t0=$(now); cat "$s/reads_R1.fq" >/dev/null; c=$(since "$t0")
  echo "cat R1.fq (page cache): $(awk -v b="$fq_bytes" -v s="$c" 'BEGIN{printf "%.0f", b/s/1e6}') MB/s"
  t0=$(now); zcat "$s/reads_R1.fq.gz" >/dev/null; z=$(since "$t0")
  echo "zcat R1.fq.gz: $z s, $(awk -v b="$fq_bytes" -v s="$z" 'BEGIN{printf "%.0f", b/s/1e6}') MB/s of FASTQ, $(rate "$pairs" "$z") M pairs/s per mate stream"
  if [ -x "$build/tools/bench_inflate" ]; then "$build/tools/bench_inflate" "$s/reads_R1.fq.gz" "1,2,4,8,$threads" 2; fi

  while read -r name bin; do
    echo "== $name: $bin"
    run "$name build small ($device)" "$bin" build "$work/small.$name.mwdb" "$s/genomes" \
      --taxonomy "$s/taxonomy" --seqid2taxid "$s/seqid2taxid.map" --device "$device" -t "$threads"
    for form in gz fq; do
      r1=$s/reads_R1.fq r2=$s/reads_R2.fq
      [ "$form" = fq ] || { r1=$r1.gz r2=$r2.gz; }
      for rep in 1 2; do
        run "$name query small .$form #$rep" "$bin" query "$work/small.$name.mwdb" "$r1" "$r2" \
          -o "$work/small.$name.$form.tsv" --device "$device" -t "$threads" $(verbose "$bin")
        echo "    => $(rate "$pairs" "$last_wall") M pairs/s end to end"
      done
    done
    cmp "$work/small.$name.gz.tsv" "$work/small.$name.fq.tsv" &&
      echo "    per-read output from .fastq.gz == from .fastq"
  done < <(binaries)
  [ -z "$old" ] || { cmp "$work/small.old.fq.tsv" "$work/small.new.fq.tsv" &&
    echo "old and new per-read outputs are byte-identical"; }

  echo "== several samples: 4 samples (the small pairs under 4 names), one run against 4 runs"
  printf "s%d\t%s\t%s\n" 1 "$s/reads_R1.fq" "$s/reads_R2.fq" 2 "$s/reads_R1.fq" "$s/reads_R2.fq" \
    3 "$s/reads_R1.fq" "$s/reads_R2.fq" 4 "$s/reads_R1.fq" "$s/reads_R2.fq" >"$work/sheet.tsv"
  rm -rf "$work/samples" && mkdir -p "$work/samples"
  run "new query, 4 samples in one run" "$new" query "$work/small.new.mwdb" \
    --samples "$work/sheet.tsv" --output-dir "$work/samples" --device "$device" -t "$threads"
  t0=$(now)
  for i in 1 2 3 4; do
    "$new" query "$work/small.new.mwdb" "$s/reads_R1.fq" "$s/reads_R2.fq" -o "$work/sep$i.tsv" \
      --device "$device" -t "$threads" -q
  done
  echo "new query, the 4 samples in 4 runs: wall $(since "$t0") s"
  for i in 1 2 3 4; do cmp "$work/samples/s$i.tsv" "$work/sep$i.tsv"; done &&
    echo "    every sample's output equals its separate run's"
fi

# timeline: the small sample end to end, REPEATS times (default 6) per binary
# and input form, with when the load line, the summary line and the process's
# exit came (seconds from the start; stderr lines stamped as they arrive).
# Needs the small set (STEP small first, same WORK_DIR).
if [ "$step" = timeline ]; then
  s=$work/small
  [ -f "$s/reads_R2.fq.gz" ] || { echo "timeline: run STEP small first" >&2; exit 1; }
  "$new" build "$work/timeline.mwdb" "$s/genomes" --taxonomy "$s/taxonomy" \
    --seqid2taxid "$s/seqid2taxid.map" --device "$device" -t "$threads" -q
  warm "$s/reads_R1.fq.gz" "$s/reads_R2.fq.gz" "$s/reads_R1.fq" "$s/reads_R2.fq" "$work/timeline.mwdb"
  stamped() {  # LABEL COMMAND...: one line of times
    local label=$1 t0 t1
    shift
    t0=$(now)
    "$@" 2> >(while IFS= read -r l; do echo "$(now) $l"; done >"$work/stamped.txt") >/dev/null
    t1=$(now)
    sleep 0.2  # the stamping subshell's last line
    awk -v a="$t0" -v b="$t1" -v label="$label" '/loading database/ {l = $1 - a}
      / classified \(/ {q = $1 - a}
      END {printf "%s: load done %.3f, summary %.3f, exit %.3f (summary to exit %.3f)\n",
           label, l, q, b - a, b - a - q}' "$work/stamped.txt"
  }
  if [ -x "$build/tools/bench_cuda_start" ]; then  # CUDA's own start and exit, for reference
    for mib in "0 0" "0 0" "256 0" "512 200"; do
      t0=$(now)
      line=$("$build/tools/bench_cuda_start" $mib)
      echo "bench_cuda_start $mib: $line; process start to exit $(since "$t0") s"
    done
  fi
  for rep in $(seq "${REPEATS:-6}"); do
    while read -r name bin; do
      for form in fq gz; do
        r1=$s/reads_R1.fq r2=$s/reads_R2.fq
        [ "$form" = fq ] || { r1=$r1.gz r2=$r2.gz; }
        stamped "$name .$form" "$bin" query "$work/timeline.mwdb" "$r1" "$r2" \
          -o "$work/timeline.$name.$form.tsv" --device "$device" -t "$threads"
      done
    done < <(binaries)
  done | tee "$work/timeline.txt"
  while read -r name _; do
    for form in fq gz; do
      grep "^$name .$form:" "$work/timeline.txt" | awk -v k="$name .$form" '{e = $9 + 0; n++; sum += e
        if (n == 1 || e < lo) lo = e; if (e > hi) hi = e}
        END {printf "%s: process start to exit %.3f-%.3f s, mean %.3f (%d runs)\n", k, lo, hi, sum / n, n}'
    done
  done < <(binaries)
  for form in fq gz; do
    [ -z "$old" ] || cmp "$work/timeline.old.$form.tsv" "$work/timeline.new.$form.tsv"
  done && echo "old and new per-read outputs are byte-identical"

  # The same sample through a resident server (`metawarp serve`, `query
  # --server`): the client process start to exit, the database already held.
  if "$new" serve --help >/dev/null 2>&1; then
    rm -f "$work/serve.sock"
    t0=$(now)
    "$new" serve "$work/timeline.mwdb" --socket "$work/serve.sock" --device "$device" \
      -t "$threads" 2>"$work/serve.log" &
    server=$!
    until grep -q '^serve: listening' "$work/serve.log"; do
      kill -0 "$server" || { cat "$work/serve.log"; exit 1; }
      sleep 0.05
    done
    echo "serve: listening $(since "$t0") s after its start"
    for rep in $(seq "${REPEATS:-6}"); do
      for form in fq gz; do
        r1=$s/reads_R1.fq r2=$s/reads_R2.fq
        [ "$form" = fq ] || { r1=$r1.gz r2=$r2.gz; }
        stamped "served .$form" "$new" query --server "$work/serve.sock" "$work/timeline.mwdb" \
          "$r1" "$r2" -o "$work/timeline.served.$form.tsv" --device "$device" -t "$threads"
      done
    done | tee "$work/served.txt"
    kill "$server"
    wait "$server" || true
    for form in fq gz; do
      grep "^served .$form:" "$work/served.txt" | awk -v k="served .$form" '{e = $9 + 0; n++; sum += e
        if (n == 1 || e < lo) lo = e; if (e > hi) hi = e}
        END {printf "%s: process start to exit %.3f-%.3f s, mean %.3f (%d runs)\n", k, lo, hi, sum / n, n}'
      cmp "$work/timeline.served.$form.tsv" "$work/timeline.new.$form.tsv"
    done && echo "the server's per-read outputs equal the query's own"
    sed 's/^/    /' "$work/serve.log" | tail -4
  fi
fi

if [ "$step" = all ] || [ "$step" = large ]; then
  l=$work/large
  if [ ! -f "$l/reads_R2.fq" ]; then
    rm -rf "$l"
    t0=$(now)
    "$build/tools/generate_synthetic" -o "$l" --seed 11 --total-bases "${LARGE_BASES:-10e9}" \
      --genome-length 4e6 --read-pairs 2e6 -q
    for mate in 1 2; do
      mv "$l/reads_R$mate.fq" "$l/once_R$mate.fq"
      for _ in $(seq 10); do cat "$l/once_R$mate.fq"; done >"$l/reads_R$mate.fq"
      rm "$l/once_R$mate.fq"
    done
    echo "large set: $(du -sh "$l/genomes" | cut -f1) of genomes, 20 M pairs; made in $(since "$t0") s"
  fi
  pairs=$(($(wc -l <"$l/reads_R1.fq") / 4))
  while read -r name bin; do
    echo "== $name: $bin"
    warm "$l"/genomes/*
    run "$name build large ($device)" "$bin" build "$work/large.mwdb" "$l/genomes" \
      --taxonomy "$l/taxonomy" --seqid2taxid "$l/seqid2taxid.map" --device "$device" \
      -t "$threads" $(verbose "$bin")
    db_bytes=$(stat -c %s "$work/large.mwdb")
    echo "    => $(awk -v b="$(du -sb "$l/genomes" | cut -f1)" -v s="$last_wall" \
      'BEGIN{printf "%.0f", b/s/1e6}') MB/s of reference end to end; database $db_bytes bytes"
    warm "$work/large.mwdb" "$l/reads_R1.fq" "$l/reads_R2.fq"
    run "$name query large .fq" "$bin" query "$work/large.mwdb" "$l/reads_R1.fq" "$l/reads_R2.fq" \
      -o "$work/large.$name.tsv" --device "$device" -t "$threads" $(verbose "$bin")
    if [ "$name" = new ] && [ -x "$build/tools/bench_db_io" ]; then
      "$build/tools/bench_db_io" --database "$work/large.mwdb" --threads "$threads" --repeat 2 ||
        true
    fi
    rm -f "$work/large.mwdb"
  done < <(binaries)
  [ -z "$old" ] || { cmp "$work/large.old.tsv" "$work/large.new.tsv" &&
    echo "old and new per-read outputs are byte-identical"; rm -f "$work/large.old.tsv"; }
fi
