# Thread counts are bounded at the command line: -t far above the cores is
# clamped with a notice (it used to abort the query and hang the build), and
# the results are those of any other thread count.
source "$(dirname "$0")/cli_test_lib.sh"

build=("$metawarp" build "$data/genomes" --taxonomy "$data/taxonomy"
  --seqid2taxid "$data/seqid2taxid.map")

expect_success timeout 60 "${build[@]:0:2}" two.mwdb "${build[@]:2}" -t 2 -q
expect_success timeout 60 "${build[@]:0:2}" many.mwdb "${build[@]:2}" -t 50000
grep -q '^build: --threads 50000 is more than .*; using [0-9]*$' "$work/stderr" ||
  fail "no clamping notice: $(cat "$work/stderr")"
same_bytes many.mwdb two.mwdb

query=("$metawarp" query two.mwdb "$data/reads_R1.fq" "$data/reads_R2.fq")
expect_success timeout 60 "${query[@]}" -t 2 -o two.tsv -q
expect_success timeout 60 "${query[@]}" -t 50000 -o many.tsv
grep -q '^query: --threads 50000 is more than .*; using [0-9]*$' "$work/stderr" ||
  fail "no clamping notice: $(cat "$work/stderr")"
same_bytes many.tsv two.tsv

# --quiet silences the notice, not the bound.
expect_success timeout 60 "${query[@]}" -t 50000 -o quiet.tsv -q
[ ! -s "$work/stderr" ] || fail "--quiet printed: $(cat "$work/stderr")"

# GPU lanes: at most the worker threads (and 64), with a notice when asked for more.
expect_success timeout 60 "${query[@]}" -t 2 --gpu-lanes 1000 --device cpu -o lanes.tsv
grep -q '^query: --gpu-lanes 1000 is more than the 2 worker threads can use; using 2$' \
  "$work/stderr" || fail "no lanes notice: $(cat "$work/stderr")"
echo "all thread checks passed"
