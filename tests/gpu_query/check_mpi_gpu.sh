#!/usr/bin/env bash
# query --mpi --device gpu (docs/scale-out.md, "Several hosts"): each rank's
# part of the database on a GPU of its host, its lists kept there and the
# reads decided on rank 0's GPU; on 2 and 3 ranks (3 sharing fewer GPUs:
# local rank mod the --gpus list) the per-read output, Kraken output, report
# and abundance table byte-identical to one process on the whole database,
# for pairs and single reads; with --report-minimizer-data (the features'
# hashes are the host's) the hits gathered and decided on rank 0's CPU, the
# same; -v says the seconds in MPI calls and where rank 0's GPU time went.
#
#   check_mpi_gpu.sh METAWARP TEST_DATA_DIR WORK_DIR
#
# Exits 77 (ctest: skipped) without mpirun, a metawarp with MPI or a GPU.
set -euo pipefail
mw=$1 test_data=$2 work=$3
command -v mpirun >/dev/null 2>&1 || { echo "SKIPPED: no mpirun (OpenMPI's openmpi-bin)"; exit 77; }
if grep -q "built without MPI" <<<"$("$mw" query --help)"; then
  echo "SKIPPED: this metawarp was built without MPI"
  exit 77
fi
if ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIPPED: no usable CUDA device"; exit 77; fi
rm -rf "$work" && mkdir -p "$work"
# With two GPUs or more, the 3 ranks share two (--gpus 2: local ranks 0 and 2
# on GPU 0, 1 on GPU 1); else all on GPU 0.
gpus=$(nvidia-smi -L | grep -c '^GPU ')
share=(--gpus 0,)
[ "$gpus" -ge 2 ] && share=(--gpus 2)

# Root (CI) must say so to OpenMPI; --oversubscribe lets 3 ranks share fewer
# cores; a job that hangs fails (124) instead of holding the test.
mpi() {
  local ranks=$1
  shift
  timeout 120 mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np "$ranks" "$@"
}

db=$work/db.mwdb
"$mw" build "$db" "$test_data/genomes" --taxonomy "$test_data/taxonomy" \
  --seqid2taxid "$test_data/seqid2taxid.map" --device cpu -q
check() {  # name, reads (one or two files)
  local name=$1; shift
  local reads=("$@")
  query() {  # output name, then the command before `metawarp`, `--`, then options
    local out=$work/$name.$1; shift
    local launch=()
    while [ "$1" != -- ]; do launch+=("$1"); shift; done
    shift
    "${launch[@]}" "$mw" query "$db" "${reads[@]}" -o "$out.tsv" --kraken-output "$out.kraken" \
      --report "$out.report" --abundance "$out.abundance" --top-hits -q "$@"
    cat "$out.tsv" "$out.kraken" "$out.report" "$out.abundance" >"$out.all"
  }
  query one -- --device cpu --threads 4
  # Small batches on 2 threads: many exchanges, the threads taking turns.
  query gpu2 mpi 2 -- --mpi --device gpu --threads 2 --batch-size 64
  cmp "$work/$name.one.all" "$work/$name.gpu2.all"
  echo "$name: --mpi --device gpu on 2 ranks (GPU 0) == one process" \
    "($(wc -l <"$work/$name.one.tsv") lines)"
  query gpu3 mpi 3 -- --mpi --device gpu "${share[@]}" --threads 2 --batch-size 333
  cmp "$work/$name.one.all" "$work/$name.gpu3.all"
  echo "$name: --mpi --device gpu ${share[*]} on 3 ranks == one process"
  # Two shards per GPU: the same outputs.
  query gpushards mpi 2 -- --mpi --device gpu --shards-per-gpu 2 --threads 2
  cmp "$work/$name.one.all" "$work/$name.gpushards.all"
  echo "$name: --mpi --device gpu --shards-per-gpu 2 == one process"
  # The host's path: every hit gathered to rank 0 and decided on its CPU.
  query hashes -- --device cpu --threads 4 --report-minimizer-data --confidence 0.1
  query gpuhashes mpi 2 -- --mpi --device gpu --threads 2 --report-minimizer-data \
    --confidence 0.1
  cmp "$work/$name.hashes.all" "$work/$name.gpuhashes.all"
  echo "$name: --mpi --device gpu --report-minimizer-data (decided on rank 0's CPU) == one process"
}
check pairs "$test_data/reads_R1.fq" "$test_data/reads_R2.fq"
check single "$test_data/reads_R1.fq"
# Bases that travel as 2 bits and a list of the others: reads in lower case,
# with N and IUPAC codes, the same calls as one process.
awk 'NR % 4 == 2 { if (NR % 12 == 2) $0 = tolower($0);
                   if (NR % 8 == 2) $0 = substr($0, 1, 20) "NNRY" substr($0, 25) } { print }' \
  "$test_data/reads_R1.fq" >"$work/odd_R1.fq"
cmp -s "$test_data/reads_R1.fq" "$work/odd_R1.fq" && { echo "odd_R1.fq was not changed"; exit 1; }
check odd "$work/odd_R1.fq" "$test_data/reads_R2.fq"

# -v: rank 0 times its MPI calls, its hit collection and its GPU.
mpi 2 "$mw" query "$db" "$test_data/reads_R1.fq" --mpi --device gpu -v -o "$work/v.tsv" \
  2>"$work/v.err"
grep "^query: MPI over 2 ranks, decided on rank 0's GPU: [1-9][0-9]* groups, [1-9][0-9]* reads \
broadcast .* MPI calls" "$work/v.err"
grep "^query: GPU parts on GPU " "$work/v.err"

# A rank whose GPU cannot take its part (here: GPU 63, which no host has):
# one message naming the rank, the GPU and the part's size; every rank ends
# with status 1; no output left.
status=0
mpi 2 "$mw" query "$db" "$test_data/reads_R1.fq" --mpi --device gpu --gpus 0,63 -q \
  -o "$work/failed.tsv" 2>"$work/failed.err" || status=$?
cat "$work/failed.err"
[ "$status" -eq 1 ]
grep -q "^metawarp: error: --mpi: rank 1 of 2 could not load its part of the database: its part (.* locations, about .* on a GPU) on GPU 63 of host " "$work/failed.err"
[ "$(grep -c '^metawarp: error: ' "$work/failed.err")" -eq 1 ]
[ ! -e "$work/failed.tsv" ]
echo "a rank's GPU that cannot take its part ends the job: one message naming rank and GPU"
rm -rf "$work"
