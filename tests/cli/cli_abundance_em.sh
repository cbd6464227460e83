# query --abundance-em: the abundance table with the EM's estimate is the same
# whatever the threads, batch size and partitions; its reads columns keep the
# plain table's; the flag without --abundance is refused.
source "$(dirname "$0")/cli_test_lib.sh"

build_test_database db.mwdb
r1=$data/reads_R1.fq
r2=$data/reads_R2.fq

expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' --abundance plain.tsv
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' --abundance em.tsv --abundance-em
head -n 1 em.tsv | grep -q 'estimated_reads' || fail "no estimated_reads column: $(head -n 1 em.tsv)"
# The first four columns hold the plain table's rows (in another order).
cut -f 1-4 plain.tsv | sort >plain.rows
cut -f 1-4 em.tsv | grep -v $'\t0\t0.0000$' | sort >em.rows
cmp -s plain.rows em.rows || fail "reads columns differ from the plain table: $(diff plain.rows em.rows)"
# The estimated reads add up to the reads.
awk -F'\t' 'NR > 1 { r += $3; e += $5 } END { d = r - e; if (d < -0.05 || d > 0.05) exit 1 }' \
  em.tsv || fail "estimated reads do not add up to the reads"
pass "--abundance-em: the plain table's reads, estimated reads adding up"

expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' --abundance em_t3.tsv \
  --abundance-em -t 3 --batch-size 7
cmp -s em.tsv em_t3.tsv || fail "3 threads, batches of 7: the table differs"
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' --abundance em_p2.tsv \
  --abundance-em --partitions 2
cmp -s em.tsv em_p2.tsv || fail "2 partitions: the table differs"
pass "--abundance-em: identical with 3 threads, batches of 7 and 2 partitions"

expect_error "--abundance-em needs --abundance" "$metawarp" query db.mwdb "$r1" "$r2" -q \
  -o '' --abundance-em
