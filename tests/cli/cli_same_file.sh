# No output may be an input, the database or another output: each case is
# refused before any work with status 1, and every input stays byte for byte.
source "$(dirname "$0")/cli_test_lib.sh"

build_test_database db
cp "$data/reads_R1.fq" r1.fq
cp "$data/reads_R2.fq" r2.fq
cp "$data/genomes/genome_000001.fna" ref.fa
mkdir originals
cp db r1.fq r2.fq ref.fa originals/

inputs_unchanged() {
  for f in db r1.fq r2.fq ref.fa; do same_bytes "$f" "originals/$f"; done
}

expect_error "reads 2 'r2.fq'" "$metawarp" query db r1.fq r2.fq -o r2.fq
inputs_unchanged
expect_error "reads 1 'r1.fq'" "$metawarp" query db r1.fq r2.fq -o out.tsv --report r1.fq
inputs_unchanged
expect_error "database 'db'" "$metawarp" query db r1.fq r2.fq -o db
inputs_unchanged
expect_error "reference 'ref.fa'" "$metawarp" build ref.fa ref.fa --no-taxonomy
inputs_unchanged
cp "$data/seqid2taxid.map" map.copy
expect_error "--seqid2taxid 'map.copy'" "$metawarp" build map.copy "$data/genomes" \
  --seqid2taxid map.copy --no-taxonomy
same_bytes map.copy "$data/seqid2taxid.map"

# A reference found in a folder: rebuilding over it is refused too.
mkdir refs
cp ref.fa refs/old.fa
expect_error "reference 'refs/old.fa'" "$metawarp" build refs/old.fa refs -q --no-taxonomy
same_bytes refs/old.fa ref.fa

# Other spellings of the same file: ./x, a symbolic link, a hard link.
expect_error "reads 'r1.fq'" "$metawarp" query db r1.fq -o ./r1.fq
ln -s r1.fq link.fq
expect_error "reads 'r1.fq'" "$metawarp" query db r1.fq --kraken-output link.fq
ln r2.fq hard.fq
expect_error "hard.fq" "$metawarp" query db r1.fq r2.fq --abundance hard.fq
inputs_unchanged

# Two outputs in one file, existing or not yet.
expect_error "are the same file" "$metawarp" query db r1.fq r2.fq -o same --report same
[ ! -e same ] || fail "a refused query created 'same'"
echo "old" >kept.tsv
expect_error "are the same file" "$metawarp" query db r1.fq -o kept.tsv --kraken-output ./kept.tsv
[ "$(cat kept.tsv)" = "old" ] || fail "a refused query changed kept.tsv"

# Standard streams.
expect_error "standard output" "$metawarp" query db r1.fq -o - --report -
expect_error "standard input is given twice" "$metawarp" query db - - -o '' </dev/null
echo "all same-file checks passed"
