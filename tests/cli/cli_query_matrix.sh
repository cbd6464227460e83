# The query modes as one matrix: every engine x options x samples writes the
# per-read TSV, Kraken output, report, abundance table and read files
# byte-identical to the resident CPU engine's (the reference), on test_data.
#
#   cli_query_matrix.sh METAWARP TEST_DATA WORK [cpu|gpu]
#
# cpu (the default): the resident CPU engine with other threads and batches,
# and the streamed engine (the database in parts) on the CPU with 1 and 3
# parts and many super-batches. gpu: the same matrix on the GPU engines
# (resident on one GPU, in 2 shards, and streamed in 1 and 3 parts); exits 77
# without a GPU.
source "$(dirname "$0")/cli_test_lib.sh"
set_name=${4:-cpu}

case $set_name in
  cpu)
    engines=(
      "cpu_t1:--device cpu -t 1 --batch-size 7"
      "parts1:--device cpu --partitions 1"
      "parts3:--device cpu --partitions 3 -t 3"
      "parts3_small:--device cpu --partitions 3 --hit-memory 64K --batch-size 33 -t 2"
    )
    ;;
  gpu)
    if ! nvidia-smi -L >/dev/null 2>&1; then
      echo "SKIPPED: no usable CUDA device"
      exit 77
    fi
    engines=(
      "gpu:--device gpu"
      "gpu_shards:--device gpu --shards-per-gpu 2 --batch-size 100"
      "gpu_parts1:--device gpu --partitions 1"
      "gpu_parts3:--device gpu --partitions 3"
      "gpu_parts3_shards:--device gpu --partitions 3 --shards-per-gpu 2 --hit-memory 64K"
    )
    ;;
  *) fail "unknown engine set '$set_name' (cpu or gpu)" ;;
esac

build_test_database db.mwdb
r1=$data/reads_R1.fq
r2=$data/reads_R2.fq
head -n 400 "$r1" >part_R1.fq
head -n 400 "$r2" >part_R2.fq

# The options rows: each adds what changes what the engines must compute
# (the evidence, --confidence, the minimizer data, candidates, masking).
options=(
  "plain:"
  "evidence:--confidence 0.2 --top-hits"
  "minimizers:--report-minimizer-data --minimum-hit-groups 3"
  "ranks:--max-candidates 2 --hit-diff 0 --lowest species --minimum-base-quality 20"
  "em:--abundance-em --abundance-rank genus"
)

# run <out prefix> <engine options> <option row options>: one sample (pairs)
# and two samples in one run (all pairs, the first 100 pairs), every output.
run() {
  local out=$1 engine=$2 opts=$3
  mkdir -p "$out"
  # shellcheck disable=SC2086
  "$metawarp" query db.mwdb "$r1" "$r2" -q $engine $opts -o "$out/one.tsv" \
    --kraken-output "$out/one.kraken" --report "$out/one.report" \
    --abundance "$out/one.abundance" --classified-out "$out/one.c#.fq" \
    --unclassified-out "$out/one.u#.fq" 2>"$out/one.err" ||
    fail "$out: query failed: $(cat "$out/one.err")"
  # shellcheck disable=SC2086
  "$metawarp" query db.mwdb --sample pairs "$r1" "$r2" --sample part part_R1.fq part_R2.fq -q $engine $opts \
    --output-dir "$out" -o "{sample}.tsv" --kraken-output "{sample}.kraken" \
    --report "{sample}.report" --abundance "{sample}.abundance" \
    --classified-out "{sample}.c#.fq" --unclassified-out "{sample}.u#.fq" 2>"$out/many.err" ||
    fail "$out: samples failed: $(cat "$out/many.err")"
  rm -f "$out/one.err" "$out/many.err"
}

for row in "${options[@]}"; do
  name=${row%%:*} opts=${row#*:}
  run "ref.$name" "--device cpu -t 2" "$opts"
  [ -s "ref.$name/one.kraken" ] || fail "$name: the reference wrote no Kraken output"
  for e in "${engines[@]}"; do
    engine=${e%%:*} engine_opts=${e#*:}
    run "$engine.$name" "$engine_opts" "$opts"
    diff -r "ref.$name" "$engine.$name" >/dev/null ||
      fail "$engine x $name: outputs differ from the resident CPU engine's: $(diff -rq "ref.$name" "$engine.$name" | head -n 3)"
    files=$(find "$engine.$name" -type f | wc -l)
    pass "$engine x $name: $files files byte-identical to the resident CPU engine's"
  done
done
no_temporaries .
