# Inputs checked before they are used (issue 25): a taxonomy whose taxon is
# its own parent or lies on a cycle (case 10). Each command must end
# promptly: `timeout 20` turns a hang into a failure.
source "$(dirname "$0")/cli_test_lib.sh"

genome="$data/genomes/genome_000001.fna"
taxonomy=(--taxonomy "$data/taxonomy" --seqid2taxid "$data/seqid2taxid.map")

# Case 10: the tester's self-parent species, and a cycle, named by file and line.
mkdir self_parent cycle
cp "$data/taxonomy/names.dmp" self_parent/
cp "$data/taxonomy/names.dmp" cycle/
sed 's/^1000006\t|\t1000005\t|/1000006\t|\t1000006\t|/' "$data/taxonomy/nodes.dmp" >self_parent/nodes.dmp
cmp -s self_parent/nodes.dmp "$data/taxonomy/nodes.dmp" && fail "the self-parent line was not made"
expect_error "self_parent/nodes.dmp:8: taxid 1000006 is its own parent" \
  timeout 20 "$metawarp" build x.mwdb "$data/genomes" --taxonomy self_parent \
  --seqid2taxid "$data/seqid2taxid.map" -q
sed 's/^1000005\t|\t1000004\t|/1000005\t|\t1000006\t|/' "$data/taxonomy/nodes.dmp" >cycle/nodes.dmp
expect_error "cycle/nodes.dmp:7: taxa 1000005 -> 1000006 -> 1000005 form a cycle of parents" \
  timeout 20 "$metawarp" build x.mwdb "$data/genomes" --taxonomy cycle \
  --seqid2taxid "$data/seqid2taxid.map" -q
[ ! -e x.mwdb ] || fail "a refused build wrote x.mwdb"

echo "all input checks passed"
