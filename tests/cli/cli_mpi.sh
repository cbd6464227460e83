# query --mpi (several ranks, a part of the database each; docs/scale-out.md
# "Several hosts"): every output byte-identical to one process on the whole
# database, for pairs and samples, on 2 and 3 ranks; a rank that cannot load
# its part ends the job: one message, status 1, no output left.
source "$(dirname "$0")/cli_test_lib.sh"

command -v mpirun >/dev/null 2>&1 || { echo "skip: no mpirun (OpenMPI's openmpi-bin)"; exit 77; }
help=$("$metawarp" query --help)  # not piped into grep -q: SIGPIPE under pipefail
grep -q -- '--mpi' <<<"$help" || fail "query --help does not list --mpi"
if grep -q "built without MPI" <<<"$help"; then
  echo "skip: this metawarp was built without MPI"
  exit 77
fi

# metawarp itself loads no MPI library (only metawarp-mpi beside it, to which
# --mpi hands the command line): OpenMPI's libraries cost every other run
# address space, and a host without them could not start metawarp.
if command -v ldd >/dev/null 2>&1; then
  libraries=$(ldd "$metawarp")
  grep -q 'libmpi' <<<"$libraries" && fail "$metawarp links an MPI library"
  [ -x "$(dirname "$metawarp")/metawarp-mpi" ] || fail "no metawarp-mpi beside $metawarp"
  pass "metawarp links no MPI library; metawarp-mpi is beside it"
fi

# Root (CI) must say so to OpenMPI; on one host the ranks talk through
# shared memory, and --oversubscribe lets 3 ranks share fewer cores. A job
# that hangs fails the test (124) instead of holding it.
mpi() {
  local ranks=$1
  shift
  timeout 60 mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np "$ranks" \
    -x METAWARP_TEST_MPI_FAIL_RANK "$@"
}
export METAWARP_TEST_MPI_FAIL_RANK=

build_test_database db.mwdb
r1=$data/reads_R1.fq
r2=$data/reads_R2.fq

# What --mpi does not run with: refused before MPI starts.
expect_error "--mpi runs in the processes mpirun starts: not with --server" \
  "$metawarp" query db.mwdb "$r1" --mpi --server x.sock -o x.tsv
expect_error "excludes --mpi" "$metawarp" query db.mwdb "$r1" --mpi --partitions 2 -o x.tsv
[ -e x.tsv ] && fail "x.tsv written by a refused query"
# --device gpu puts each rank's part on a GPU (tests/gpu_query/check_mpi_gpu.sh);
# a metawarp built without CUDA says so, as one process does, and every rank ends.
if ! "$metawarp" query db.mwdb "$r1" --device gpu -q -o one_gpu.tsv 2>one_gpu.err &&
  grep -q "built without CUDA" one_gpu.err; then
  expect_error "could not load its part of the database: " \
    mpi 2 "$metawarp" query db.mwdb "$r1" --mpi --device gpu -q -o x.tsv
  grep -q "rank 0 of 2 could not load its part of the database: its part (.* locations, about .* on a GPU) on GPU 0 of host .*built without CUDA" "$work/stderr" ||
    fail "--mpi --device gpu: $(cat "$work/stderr")"
  [ -e x.tsv ] && fail "x.tsv written by a failed job"
fi
rm -f one_gpu.tsv one_gpu.err

# shellcheck disable=SC2046
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q --top-hits -t 2 $(query_outputs whole)
for ranks in 2 3; do
  # Small batches on 2 threads: many exchanges, the threads taking turns.
  # shellcheck disable=SC2046
  expect_success mpi "$ranks" "$metawarp" query db.mwdb "$r1" "$r2" -q --top-hits --mpi \
    -t 2 --batch-size 64 $(query_outputs "ranks$ranks")
  same_query_outputs whole "ranks$ranks"
done
pass "2 and 3 ranks: outputs byte-identical to one process on the whole database"

# -v: rank 0 accounts for the exchange apart from its hit collection and the
# decisions (docs/scale-out.md measures it).
mpi 2 "$metawarp" query db.mwdb "$r1" --mpi -v -o verbose.tsv 2>verbose.err ||
  fail "--mpi -v: $(cat verbose.err)"
grep -q "^query: MPI over 2 ranks: [1-9][0-9]* batches, .* in MPI calls (broadcast + gather.*) [0-9.]* s, rank 0's hit collection [0-9.]* s, decisions [0-9.]* s" verbose.err ||
  fail "--mpi -v does not time the exchange: $(cat verbose.err)"
pass "--mpi -v: the seconds in MPI calls, the hit collection and the decisions"

# Samples: one query per sample on the same ranks.
mkdir one many
# shellcheck disable=SC2046
expect_success "$metawarp" query db.mwdb "$r1" -q --top-hits $(query_outputs one/single)
expect_success mpi 2 "$metawarp" query db.mwdb --sample pairs "$r1" "$r2" --sample single "$r1" \
  --output-dir many --mpi -q --top-hits -o '{sample}.tsv' \
  --kraken-output '{sample}.kraken' --report '{sample}.report' --abundance '{sample}.abundance'
same_query_outputs whole many/pairs
same_query_outputs one/single many/single
pass "samples with --mpi: outputs identical to one process"

# A rank that cannot load its part (the engine's test hook): every rank
# ends, one message naming the rank, status 1, no output left.
for failing in 1 0; do
  export METAWARP_TEST_MPI_FAIL_RANK=$failing
  # shellcheck disable=SC2046
  expect_error "--mpi: rank $failing of 3 could not load its part of the database" \
    mpi 3 "$metawarp" query db.mwdb "$r1" "$r2" -q --mpi $(query_outputs failed)
  for f in tsv kraken report abundance; do
    [ -e "failed.$f" ] && fail "failed.$f left by a failed job"
  done
done
export METAWARP_TEST_MPI_FAIL_RANK=
pass "a rank failing its load ends the job: status 1, one message, no outputs"

# Rank 0 refusing its command line before the ranks agree on their loads:
# it ends without them, and mpirun ends the others (no hang).
expect_error "--abundance-em needs --abundance" \
  mpi 2 "$metawarp" query db.mwdb "$r1" -q --mpi --abundance-em -o refused.tsv
[ -e refused.tsv ] && fail "refused.tsv left by a refused job"
no_temporaries .
