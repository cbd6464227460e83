# profile-db: the read-placement profile is the same for any thread count;
# query --abundance uses it (estimated columns, --bracken-output in Bracken's
# seven columns, fractions adding up to 1, the same with 2 partitions); a
# profile of another database (rebuilt at the same path) or a damaged one is
# refused with one error line; bad option combinations are refused.
source "$(dirname "$0")/cli_test_lib.sh"

build_test_database db.mwdb
r1=$data/reads_R1.fq
r2=$data/reads_R2.fq

expect_success "$metawarp" profile-db db.mwdb --read-length 150 --paired --stride 40 -t 1 \
  --device cpu -q
[ -f db.mwdb.profile-L150-paired ] || fail "no db.mwdb.profile-L150-paired"
cp db.mwdb.profile-L150-paired one_thread.profile
expect_success "$metawarp" profile-db db.mwdb --read-length 150 --paired --stride 40 -t 3 \
  --device cpu -q
same_bytes one_thread.profile db.mwdb.profile-L150-paired
no_temporaries .
pass "profile-db: the same profile with 1 and 3 threads"

# Reads with sequencing errors (--error-rate): the errors are drawn per read
# and base from a hash, so the profile is the same whatever the threads; it
# records the rate, and differs from the error-free one.
ln -s db.mwdb err.mwdb
expect_success "$metawarp" profile-db err.mwdb --read-length 150 --paired --stride 40 -t 1 \
  --device cpu -q --error-rate 0.02
cp err.mwdb.profile-L150-paired err_one_thread.profile
expect_success "$metawarp" profile-db err.mwdb --read-length 150 --paired --stride 40 -t 3 \
  --device cpu -q --error-rate 0.02
same_bytes err_one_thread.profile err.mwdb.profile-L150-paired
grep -qx 'reads 150 paired 400 40 20000' err.mwdb.profile-L150-paired ||
  fail "reads line: $(grep '^reads' err.mwdb.profile-L150-paired)"
grep -qx 'reads 150 paired 400 40 0' db.mwdb.profile-L150-paired ||
  fail "reads line: $(grep '^reads' db.mwdb.profile-L150-paired)"
cmp -s <(grep -v '^reads\|^checksum' err.mwdb.profile-L150-paired) \
  <(grep -v '^reads\|^checksum' db.mwdb.profile-L150-paired) &&
  fail "--error-rate 0.02 changed no read's call"
rm err.mwdb err.mwdb.profile-L150-paired
pass "profile-db --error-rate: the same profile with 1 and 3 threads, unlike the error-free one"

expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' --abundance ab.tsv \
  --bracken-output bracken.tsv
head -n 1 ab.tsv | grep -q 'estimated_reads' || fail "no estimated columns: $(head -n 1 ab.tsv)"
[ "$(head -n 1 bracken.tsv)" = "$(printf 'name\ttaxonomy_id\ttaxonomy_lvl\tkraken_assigned_reads\tadded_reads\tnew_est_reads\tfraction_total_reads')" ] ||
  fail "Bracken header: $(head -n 1 bracken.tsv)"
awk -F'\t' 'NR > 1 { if (NF != 7 || $3 != "S" || $5 != $6 - $4) exit 1; f += $7; n++ }
  END { if (n == 0 || f < 0.999 || f > 1.001) exit 1 }' bracken.tsv ||
  fail "Bracken rows: $(cat bracken.tsv)"
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' --abundance ab_p2.tsv \
  --bracken-output bracken_p2.tsv --partitions 2 -t 2
same_bytes ab.tsv ab_p2.tsv
same_bytes bracken.tsv bracken_p2.tsv
pass "query --abundance with the profile: estimate, Bracken's columns, same with 2 partitions"

# Single reads have no profile of their layout: the plain table.
expect_success "$metawarp" query db.mwdb "$r1" -q -o '' --abundance single.tsv
head -n 1 single.tsv | grep -q 'estimated_reads' && fail "single reads used the pairs' profile"
pass "no profile of the sample's layout: the plain table"

cp db.mwdb.profile-L150-paired good.profile
sed -i 's/^source \([0-9]*\) /source \1 1/' db.mwdb.profile-L150-paired
expect_error "damaged" "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' --abundance x.tsv
[ -e x.tsv ] && fail "a refused query left x.tsv"
cp good.profile db.mwdb.profile-L150-paired
"$metawarp" build db.mwdb "$data/genomes" --taxonomy "$data/taxonomy" \
  --seqid2taxid "$data/seqid2taxid.map" -q -t 2 -k 19 || fail "rebuilding the database"
expect_error "was built for another database" "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' \
  --abundance x.tsv
pass "a damaged profile, and one of an older build of the database, are refused"

# A profile of format 1 (before the error rate): refused, saying to rebuild it.
sed -i '1s/.*/#metawarp read-placement profile 1/' db.mwdb.profile-L150-paired
expect_error "format 1, this metawarp reads format 3" "$metawarp" query db.mwdb "$r1" "$r2" -q \
  -o '' --abundance x.tsv
rm db.mwdb.profile-L150-paired
pass "a profile of an older format is refused with what to do"

expect_error "--fragment-length is for pairs" "$metawarp" profile-db db.mwdb --read-length 150 \
  --fragment-length 400
expect_error "shorter than two mates" "$metawarp" profile-db db.mwdb --read-length 150 --paired \
  --fragment-length 200
pass "profile-db refuses a fragment for single reads, and one shorter than its mates"

# The database read in parts (--partitions, --max-memory: every engine call
# walks the parts): the same profile, byte for byte, as the whole database's;
# on the CPU only.
expect_success "$metawarp" profile-db db.mwdb --read-length 150 --paired --stride 40 -t 2 \
  --device cpu -q
cp db.mwdb.profile-L150-paired whole.profile
"$metawarp" profile-db db.mwdb --read-length 150 --paired --stride 40 -t 2 --device cpu \
  --partitions 3 2>parts.log || fail "profile-db --partitions 3: $(cat parts.log)"
grep -q 'database in 3 parts' parts.log || fail "not 3 parts: $(cat parts.log)"
same_bytes whole.profile db.mwdb.profile-L150-paired
expect_success "$metawarp" profile-db db.mwdb --read-length 150 --paired --stride 40 -t 3 -q \
  --max-memory 1G
same_bytes whole.profile db.mwdb.profile-L150-paired
expect_error "read the database in parts on the CPU" "$metawarp" profile-db db.mwdb \
  --read-length 150 --paired --partitions 2 --device gpu
no_temporaries .
pass "profile-db --partitions, --max-memory: the whole database's profile; not with --device gpu"
