# A build whose targets all lack a taxon (a taxonomy but no seqid map, or a
# map for other references) would make a database that classifies no read:
# it is an error naming the fix, which leaves an older database at the path
# as it was, unless --allow-no-taxa asks for it. Some targets without a taxon
# stay a warning.
source "$(dirname "$0")/cli_test_lib.sh"

genomes=$data/genomes
targets=$(cat "$genomes"/* | grep -c '^>')
build_test_database db.mwdb
cp db.mwdb db.copy

# No map: refused, the database that was there kept, nothing left behind.
expect_error "--allow-no-taxa" "$metawarp" build db.mwdb "$genomes" --taxonomy "$data/taxonomy" -t 2
grep -q "none of the $targets targets has a taxon" "$work/stderr" || fail "no count: $(cat "$work/stderr")"
grep -q -- "--seqid2taxid" "$work/stderr" || fail "the map option is not named: $(cat "$work/stderr")"
same_bytes db.mwdb db.copy
no_temporaries .
expect_error "--allow-no-taxa" "$metawarp" build new.mwdb "$genomes" --taxonomy "$data/taxonomy" \
  -t 2 --partitions 2
[ ! -e new.mwdb ] || fail "a refused build in partitions left new.mwdb"
no_temporaries .

# A map that names none of the references: refused too.
printf 'OTHER000001.1\t1000007\n' >other.map
expect_error "--allow-no-taxa" "$metawarp" build new.mwdb "$genomes" --taxonomy "$data/taxonomy" \
  --seqid2taxid other.map -t 2
grep -q "map given names them" "$work/stderr" || fail "the map is not blamed: $(cat "$work/stderr")"

# Asked for: built, every target without a taxon.
expect_success "$metawarp" build new.mwdb "$genomes" --taxonomy "$data/taxonomy" -t 2 -q \
  --allow-no-taxa
expect_success "$metawarp" info new.mwdb
grep -q "^targets  *$targets ($targets without taxon" "$work/stdout" || fail "info: $(grep targets "$work/stdout")"

# One target with a taxon: a database, with the warning naming the others.
head -n 1 "$data/seqid2taxid.map" >one.map
expect_success "$metawarp" build one.mwdb "$genomes" --taxonomy "$data/taxonomy" \
  --seqid2taxid one.map -t 2
grep -q "^build: warning: $((targets - 1)) targets have no taxon" "$work/stderr" ||
  fail "no warning: $(cat "$work/stderr")"
pass "some targets without a taxon: built, with the warning"
echo "all no-taxon checks passed"
