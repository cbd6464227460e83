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
echo "all build-flag and info checks passed"
