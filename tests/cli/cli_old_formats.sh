# Databases of format versions 2 and 3, written by earlier builds
# (test_data/old_formats/README.md), load and classify exactly as the same
# database rebuilt in the current format (version 4, the compact index): the
# same outputs byte for byte, whole and read in parts (--partitions); info
# names each file's version and shows the same index.
source "$(dirname "$0")/cli_test_lib.sh"

r1=$data/reads_R1.fq
r2=$data/reads_R2.fq
# The references as the old builds read them: a folder g, two genomes.
mkdir g && cp "$data/genomes/genome_000001.fna" "$data/genomes/genome_000002.fna" g/ ||
  fail "copying the genomes"

outputs() {  # the outputs of one query, named after $1
  echo "-o $1.tsv --kraken-output $1.kraken --report $1.report"
}
same_outputs() {
  for kind in tsv kraken report; do
    cmp -s "$1.$kind" "$2.$kind" || fail "$1.$kind and $2.$kind differ"
  done
}
# info without the lines that name the file or describe it.
index_info() {
  grep -v '^database \|^file \|^report taxa ' "$1"
}

for version in 2 3; do
  old=$data/old_formats/version$version.mwdb
  [ -f "$old" ] || fail "no $old"
  sampling=()
  [ "$version" = 2 ] && sampling=(--sampling window)  # the default before issue 26
  expect_success "$metawarp" build "new$version.mwdb" g --taxonomy "$data/taxonomy" \
    --seqid2taxid "$data/seqid2taxid.map" -q -t 2 --device cpu "${sampling[@]}"

  expect_success "$metawarp" info "$old"
  grep -q "^file format  *version $version " stdout ||
    fail "info $old: no 'file format version $version': $(grep '^file' stdout)"
  index_info stdout >"old$version.info"
  expect_success "$metawarp" info "new$version.mwdb"
  grep -q "^file format  *version 4 (counts of 1 bytes, window ids of 4 bytes)" stdout ||
    fail "info: no 'file format version 4': $(grep '^file' stdout)"
  index_info stdout >"new$version.info"
  cmp -s "old$version.info" "new$version.info" ||
    fail "info of version $version and 4 differ: $(diff "old$version.info" "new$version.info")"
  old_size=$(stat -c %s "$old")
  new_size=$(stat -c %s "new$version.mwdb")
  [ "$new_size" -lt $((old_size * 6 / 10)) ] ||
    fail "version 4 ($new_size bytes) is not below 60 % of version $version ($old_size bytes)"

  # shellcheck disable=SC2046
  expect_success "$metawarp" query "$old" "$r1" "$r2" -q -t 2 $(outputs "old$version")
  # shellcheck disable=SC2046
  expect_success "$metawarp" query "new$version.mwdb" "$r1" "$r2" -q -t 2 $(outputs "new$version")
  same_outputs "old$version" "new$version"
  # shellcheck disable=SC2046
  expect_success "$metawarp" query "$old" "$r1" "$r2" -q -t 2 --partitions 3 \
    $(outputs "parts$version")
  same_outputs "old$version" "parts$version"
  classified=$(awk -F'\t' '$2 == "C"' "old$version.tsv" | wc -l)
  [ "$classified" -gt 100 ] || fail "version $version: only $classified pairs classified"
  pass "version $version ($old_size bytes) and 4 ($new_size bytes): the same index, the same" \
    "outputs ($classified pairs classified), whole and in 3 parts"
done
