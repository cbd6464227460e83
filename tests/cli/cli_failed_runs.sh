# What a failed command leaves: a failed query none of its outputs (neither a
# partial new one nor a stale old one), a failed rebuild the old database;
# a refusal before the work starts removes nothing.
source "$(dirname "$0")/cli_test_lib.sh"

build_test_database db
# Mates 2 cut short: the query fails after it has written most of its output.
head -n 6001 "$data/reads_R2.fq" >r2_truncated.fq

write_old_outputs() {
  for f in out.tsv out.kraken out.report out.abundance; do echo "old $f" >"$f"; done
}
query_all_outputs() {
  "$metawarp" query db "$data/reads_R1.fq" "$@" -o out.tsv --kraken-output out.kraken \
    --report out.report --abundance out.abundance -q
}

write_old_outputs
expect_error "r2_truncated.fq" query_all_outputs r2_truncated.fq
for f in out.tsv out.kraken out.report out.abundance; do
  [ ! -e "$f" ] || fail "a failed query left $f: $(head -c 100 "$f")"
done
no_temporaries .
pass "a failed query removed its old outputs and left no new ones"

# The same with small batches and new paths: nothing is left either.
expect_error "r2_truncated.fq" query_all_outputs r2_truncated.fq --batch-size 7
for f in out.tsv out.kraken out.report out.abundance; do [ ! -e "$f" ] || fail "left $f"; done
no_temporaries .

# Refusals before the work starts keep the old outputs as they are.
write_old_outputs
expect_error "--interleaved" query_all_outputs "$data/reads_R2.fq" --interleaved
expect_error "--threads" query_all_outputs "$data/reads_R2.fq" -t 0
expect_error "unknown rank" query_all_outputs "$data/reads_R2.fq" --lowest nothing
expect_error "--max-candidates" query_all_outputs "$data/reads_R2.fq" --max-candidates 99
for f in out.tsv out.kraken out.report out.abundance; do
  [ "$(cat "$f")" = "old $f" ] || fail "a refused query changed $f"
done
pass "refused queries kept the old outputs"

# A successful query replaces them; stdout is streamed as before.
expect_success query_all_outputs "$data/reads_R2.fq"
[ "$(grep -vc '^#' out.tsv)" -eq 2000 ] || fail "out.tsv does not hold 2000 pairs"
"$metawarp" query db "$data/reads_R1.fq" "$data/reads_R2.fq" -q -t 2 >stdout.tsv ||
  fail "query to stdout"
cmp -s stdout.tsv out.tsv || fail "stdout differs from the file output"
pass "a successful query writes every output; stdout streams the same lines"

# A failed rebuild keeps the database that was there.
cp db db.before
printf '>broken\nACGT\n@not fasta\n' >bad.fa
expect_error "bad.fa" "$metawarp" build db bad.fa -q --no-taxonomy
same_bytes db db.before
no_temporaries .
pass "a failed rebuild kept the old database"

# A disk without room for the database (here the process's file size limit,
# 64 KiB, far below the database's size): its room is reserved before anything
# is written (where the file system reserves room; else the write fails), so
# the build says so, exit status 1, and the old database stays.
expect_error "cannot write database 'db'" \
  bash -c 'ulimit -f 64; exec "$1" build db "$2" -q --no-taxonomy' _ "$metawarp" "$data/genomes"
grep -qE "no room for its [0-9]+ bytes|File too large" "$work/stderr" ||
  fail "no room named: $(cat "$work/stderr")"
same_bytes db db.before
no_temporaries .
pass "a build without room for its database failed before writing it, the old one kept"

# A build killed by SIGKILL (which cannot be caught) leaves its temporaries;
# a partitioned one also its spill files <database>.<array>.tmp-<pid>.
# Simulated with a pid whose process is gone: the next build, partitioned or
# not, removes them all, and keeps those of a running process (this shell).
gone=$(sh -c 'echo $$')
for part in "" .features .offsets .locations; do echo "partial" >"killed.mwdb$part.tmp-$gone"; done
echo "running" >"killed.mwdb.features.tmp-$$"
expect_success "$metawarp" build killed.mwdb "$data/genomes/genome_000001.fna" -q --no-taxonomy
[ -e "killed.mwdb.features.tmp-$$" ] || fail "a running process's spill file was removed"
rm "killed.mwdb.features.tmp-$$"
no_temporaries .
pass "a build removed the temporaries and spill files of a killed partitioned build"
echo "all failed-run checks passed"
