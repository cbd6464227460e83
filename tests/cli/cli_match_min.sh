# The matched-bases rule (issue 26, classify/matched_bases.hpp): a read whose
# only evidence is a short exact piece of a reference (23 bases planted in
# random bases) is unclassified, one holding a long piece (60 bases) is
# classified, on the whole database and part by part; --match-min sets the
# bases by hand.
source "$(dirname "$0")/cli_test_lib.sh"

# scaled:2 keeps half of all k-mers, so the short piece's 4 k-mers give the
# read the 2 hits --hit-min asks (minimizers of 16 would give it fewer).
"$metawarp" build db.mwdb "$data/genomes" --taxonomy "$data/taxonomy" \
  --seqid2taxid "$data/seqid2taxid.map" -q -t 2 --sampling scaled:2 ||
  fail "building the test database"

# bases <seed> <n>: n bases that depend on the seed alone (the same on
# every machine, so the reads are those this test was written for).
bases() {
  local i
  for i in $(seq 1 $(($2 / 64 + 1))); do printf '%s-%s' "$1" "$i" | sha256sum; done |
    cut -c1-64 | tr -d '\n' | tr '0-9a-f' 'ACGTACGTACGTACGT' | head -c "$2"
}
genome=$(grep -v '>' "$data/genomes/genome_000001.fna" | tr -d '\n')
taxid=$(awk '$1 == "SYN0000001.1" { print $2 }' "$data/seqid2taxid.map")
# other <base>: a base that differs from it (the piece's neighbours in the
# read differ from the genome's, so the exact match is the piece alone).
other() { echo "$1" | tr ACGT CGTA; }
{
  echo ">short"
  echo "$(bases flank1 62)$(other "${genome:999:1}")${genome:1000:23}$(other "${genome:1023:1}")$(bases flank2 63)"
  echo ">long"
  echo "$(bases flank3 45)${genome:3000:60}$(bases flank4 45)"
  echo ">random"
  bases flank5 150
  echo
} > reads.fa

# call <tsv> <read>: the taxid the read was assigned (0: unclassified).
call() { awk -v r="$2" '$1 == r { print $3 }' "$1"; }

# The short piece alone reaches --hit-min (the rule set low lets it through).
expect_success "$metawarp" query db.mwdb reads.fa -q -o low.tsv --match-min 20
[ "$(call low.tsv short)" = "$taxid" ] ||
  fail "the 23-base piece did not reach its genome's taxon with --match-min 20: $(cat low.tsv)"
[ "$(call low.tsv random)" = 0 ] || fail "a random read was classified: $(cat low.tsv)"

# By default (the bases a chance match reaches once in a million reads of
# this database: 24 here) only the long piece stands.
expect_success "$metawarp" query db.mwdb reads.fa -q -o auto.tsv --kraken-output auto.kraken
[ "$(call auto.tsv short)" = 0 ] || fail "the 23-base piece was classified: $(cat auto.tsv)"
[ "$(call auto.tsv long)" = "$taxid" ] || fail "the 60-base piece was not classified: $(cat auto.tsv)"
pass "23 exact bases are not enough by default, 60 are"

# Part by part: the same calls, byte for byte.
for p in 2 3; do
  expect_success "$metawarp" query db.mwdb reads.fa -q -o parts$p.tsv --partitions $p \
    --kraken-output parts$p.kraken
  same_bytes auto.tsv parts$p.tsv
  same_bytes auto.kraken parts$p.kraken
done
pass "--partitions 2 and 3: the same calls"

# --match-min by hand: above the long piece's bases it is unclassified too.
expect_success "$metawarp" query db.mwdb reads.fa -q -o high.tsv --match-min 61
[ "$(call high.tsv long)" = 0 ] || fail "--match-min 61 let a 60-base match through: $(cat high.tsv)"
pass "--match-min sets the bases by hand"
