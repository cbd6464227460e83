# build --no-taxonomy and --allow-empty, and `info` naming the targets
# without a taxon and the names given to several targets.
source "$(dirname "$0")/cli_test_lib.sh"

genome="$data/genomes/genome_000001.fna"

expect_success "$metawarp" build plain.mwdb "$genome" --no-taxonomy -q
expect_error "--no-taxonomy" "$metawarp" build both.mwdb "$genome" --no-taxonomy \
  --taxonomy "$data/taxonomy"
: >empty.fa
expect_success "$metawarp" build empty.mwdb empty.fa --allow-empty --no-taxonomy -q
expect_success "$metawarp" info empty.mwdb

# A tiny reference set: one mapped genome, a name given to two targets, and
# a target the seqid map does not know.
{
  cat "$genome"
  echo ">twin first copy"
  random_bases 3000
  echo ">twin second copy"
  random_bases 3000
  echo ">orphan no taxid anywhere"
  random_bases 3000
} >refs.fa
expect_success "$metawarp" build refs.mwdb refs.fa --taxonomy "$data/taxonomy" \
  --seqid2taxid "$data/seqid2taxid.map" -q
expect_success "$metawarp" info refs.mwdb
info="$work/stdout"
grep -q '^targets  *5 (3 without taxon' "$info" || fail "target counts: $(grep targets "$info")"
grep -q '^without taxon  *3: twin, twin, orphan (`metawarp info refs.mwdb --unranked`' "$info" ||
  fail "targets without taxon: $(cat "$info")"
grep -q '^duplicate names  *1: twin (targets 2, 3)$' "$info" ||
  fail "duplicate names: $(cat "$info")"
pass "info names the targets without a taxon and the duplicate name with its target ids"

# --unranked still lists them all.
expect_success "$metawarp" info refs.mwdb --unranked
[ "$(grep -vc '^#' "$work/stdout")" -eq 3 ] || fail "--unranked: $(cat "$work/stdout")"
# Building in parts (issue 12): partitions, CPU shards and a host memory
# bound give the plain file, byte for byte; a bound one partition cannot
# meet says what to change; --partition-size takes a suffix.
for layout in "--partitions 2" "--partitions 3 --shards 2" "--partition-size 1m"; do
  # shellcheck disable=SC2086
  expect_success "$metawarp" build parts.mwdb refs.fa --taxonomy "$data/taxonomy" \
    --seqid2taxid "$data/seqid2taxid.map" -q --device cpu $layout
  cmp -s refs.mwdb parts.mwdb || fail "build $layout differs from the plain build"
done
expect_error "--partitions 2" "$metawarp" build small.mwdb refs.fa --no-taxonomy --device cpu \
  --partitions 1 --partition-size 64k
[ ! -e small.mwdb ] || fail "a failed build in partitions left small.mwdb"
ls | grep -q 'tmp-' && fail "a failed build in partitions left temporaries: $(ls)"
expect_error "--partition-size" "$metawarp" build small.mwdb refs.fa --no-taxonomy --device cpu \
  --partition-size 12x
expect_error "--gpus" "$metawarp" build small.mwdb refs.fa --no-taxonomy --device cpu --gpus 2
pass "builds in parts are the plain database; a partition over its bound says what to change"
echo "all build-flag and info checks passed"
