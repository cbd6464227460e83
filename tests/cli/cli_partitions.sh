# query --partitions / --max-memory (the database read part by part): every
# output byte-identical to the whole database's, for one reads file, pairs and
# samples; limits that cannot work are refused, naming what to change.
source "$(dirname "$0")/cli_test_lib.sh"

build_test_database db.mwdb
r1=$data/reads_R1.fq
r2=$data/reads_R2.fq

# shellcheck disable=SC2046
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q --top-hits $(query_outputs whole)
for p in 1 2 3; do
  # shellcheck disable=SC2046
  expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q --top-hits --partitions "$p" \
    $(query_outputs "parts$p")
  same_query_outputs whole "parts$p"
done
pass "1, 2 and 3 partitions: outputs byte-identical to the whole database"

# Many parts and super-batches; --verbose says so.
# shellcheck disable=SC2046
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -v --top-hits --partitions 12 \
  --hit-memory 64K --batch-size 50 -t 3 $(query_outputs tiny)
same_query_outputs whole tiny
grep -q "query: 12 part(s) (the largest .*, [0-9]* super-batch(es)" stderr ||
  fail "no partition statistics: $(cat stderr)"
pass "--partitions 12 --hit-memory 64K: $(grep -o '[0-9]* super-batch(es)' stderr), outputs identical"

# The least --max-memory: as many parts as that needs, outputs identical.
expect_error "allow at least --max-memory" "$metawarp" query db.mwdb "$r1" --max-memory 100 -o x.tsv
least=$(sed -n 's/.*allow at least --max-memory \([0-9]*\).*/\1/p' stderr)
# shellcheck disable=SC2046
expect_success "$metawarp" query db.mwdb "$r1" "$r2" --top-hits --max-memory "$least" \
  $(query_outputs least)
same_query_outputs whole least
pass "--max-memory $least: $(grep -o 'in parts \.\.\. done ([^)]*' stderr), outputs identical"

# Samples stream the parts too.
mkdir one many
# shellcheck disable=SC2046
expect_success "$metawarp" query db.mwdb "$r1" -q --top-hits $(query_outputs one/single)
expect_success "$metawarp" query db.mwdb --sample pairs "$r1" "$r2" --sample single "$r1" \
  --output-dir many --partitions 2 -q --top-hits -o '{sample}.tsv' \
  --kraken-output '{sample}.kraken' --report '{sample}.report' --abundance '{sample}.abundance'
same_query_outputs whole many/pairs
same_query_outputs one/single many/single
pass "samples with --partitions: outputs identical to whole-database runs"

# Limits that cannot work.
expect_error "allow at least --max-memory" "$metawarp" query db.mwdb "$r1" --max-memory 100 -o x.tsv
[ -e x.tsv ] && fail "x.tsv written by a refused query"
expect_error "or lower --hit-memory" \
  "$metawarp" query db.mwdb "$r1" --max-memory "$least" --hit-memory "$least" -o x.tsv
[ -e x.tsv ] && fail "x.tsv written by a refused query"
# --device gpu with parts: the same outputs where a GPU is usable, else a clear
# error (built without CUDA, no device) and no output.
# shellcheck disable=SC2046
if "$metawarp" query db.mwdb "$r1" -q --top-hits --partitions 2 --device gpu \
  $(query_outputs gpuparts) 2>gpu.err; then
  same_query_outputs one/single gpuparts
  pass "--device gpu --partitions 2: outputs identical to the whole database"
else
  grep -q "use --device cpu" gpu.err || fail "--device gpu with parts: $(cat gpu.err)"
  [ -e gpuparts.tsv ] && fail "gpuparts.tsv written by a failed query"
  pass "--device gpu --partitions 2 without a GPU: $(cat gpu.err)"
fi
no_temporaries .

# info: the layout and what given GPUs need. The per-GPU bytes of a layout add
# up to about the one-GPU figure (each GPU adds only its window bases and
# shard table), and a memory smaller than that does not fit.
expect_success "$metawarp" info db.mwdb --gpus 2 --shards-per-gpu 2 --gpu-memory 1K
grep -q "^layout  *by feature range" stdout || fail "no layout line: $(cat stdout)"
one=$(sed -n 's/^memory (GPU query) *\([0-9.]*\) GiB on one GPU.*/\1/p' stdout)
[ -n "$one" ] || fail "no GPU query memory line: $(cat stdout)"
per_gpu=$(sed -n 's/^  on GPUs 0,1 (2 shards each): GPU 0 \([0-9.]*\) GiB, GPU 1 \([0-9.]*\) GiB$/\1 \2/p' stdout)
[ -n "$per_gpu" ] || fail "no per-GPU line for --gpus 2 --shards-per-gpu 2: $(cat stdout)"
grep -q "^  with 0.00 GiB per GPU: does not fit" stdout || fail "1K per GPU said to fit: $(cat stdout)"
grep -q "^resident with .* per GPU: [0-9]* GPUs (--gpus [0-9]*); on one GPU: at least --partitions" stdout ||
  fail "no GPUs-needed line: $(cat stdout)"
pass "info --gpus 2 --shards-per-gpu 2 --gpu-memory 1K: per-GPU bytes ($per_gpu GiB) and what is needed"
expect_error "--gpus" "$metawarp" info db.mwdb --gpus 0,x
