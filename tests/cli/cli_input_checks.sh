# Inputs checked before they are used (issue 25): a taxonomy whose taxon is
# its own parent or lies on a cycle (case 10), inputs that cannot be read
# twice where a build reads its references once per partition, and a
# database that is not a regular file (case 11). Each command must end
# promptly: `timeout 20` turns a hang into a failure.
source "$(dirname "$0")/cli_test_lib.sh"

genome="$data/genomes/genome_000001.fna"
taxonomy=(--taxonomy "$data/taxonomy" --seqid2taxid "$data/seqid2taxid.map")

# Case 10: the tester's self-parent species, and a cycle, named by file and line.
mkdir self_parent cycle
cp "$data/taxonomy/names.dmp" self_parent/
cp "$data/taxonomy/names.dmp" cycle/
sed 's/^1000006\t|\t1000005\t|/1000006\t|\t1000006\t|/' "$data/taxonomy/nodes.dmp" \
  >self_parent/nodes.dmp
cmp -s self_parent/nodes.dmp "$data/taxonomy/nodes.dmp" && fail "the self-parent line was not made"
expect_error "self_parent/nodes.dmp:8: taxid 1000006 is its own parent" \
  timeout 20 "$metawarp" build x.mwdb "$data/genomes" --taxonomy self_parent \
  --seqid2taxid "$data/seqid2taxid.map" -q
sed 's/^1000005\t|\t1000004\t|/1000005\t|\t1000006\t|/' "$data/taxonomy/nodes.dmp" >cycle/nodes.dmp
expect_error "cycle/nodes.dmp:7: taxa 1000005 -> 1000006 -> 1000005 form a cycle of parents" \
  timeout 20 "$metawarp" build x.mwdb "$data/genomes" --taxonomy cycle \
  --seqid2taxid "$data/seqid2taxid.map" -q
[ ! -e x.mwdb ] || fail "a refused build wrote x.mwdb"

# Case 11: references that cannot be read twice, in a build of two
# partitions, are refused before anything is read, naming the file.
# feed <fifo> <file>: a writer in the background ($writer: its pid).
feed() {
  cat "$2" >"$1" &
  writer=$!
}
# stop_feeding: the writer blocks in open() when nothing read the FIFO.
stop_feeding() {
  kill "$writer" 2>/dev/null
  wait "$writer" 2>/dev/null
}
mkfifo refs.fifo
feed refs.fifo "$genome"
expect_error "'refs.fifo' is a FIFO (named pipe), which can be read only once" \
  timeout 20 "$metawarp" build x.mwdb refs.fifo --partitions 2 "${taxonomy[@]}" -q
stop_feeding
# Pipes under other names: /dev/stdin, /dev/fd/N (process substitution), and
# standard input; a character device.
expect_error "'/dev/stdin'" timeout 20 "$metawarp" build x.mwdb /dev/stdin --partitions 2 \
  "${taxonomy[@]}" -q < <(cat "$genome")
expect_error "a FIFO" timeout 20 "$metawarp" build x.mwdb <(cat "$genome") --partitions 2 \
  "${taxonomy[@]}" -q
expect_error "standard input" timeout 20 "$metawarp" build x.mwdb - --partitions 2 \
  "${taxonomy[@]}" -q <"$genome"
expect_error "'/dev/zero' is a character device" timeout 20 "$metawarp" build x.mwdb /dev/zero \
  "$genome" --partitions 2 "${taxonomy[@]}" -q
[ ! -e x.mwdb ] || fail "a refused build wrote x.mwdb"

# One pass reads a FIFO, and /dev/stdin behind a regular file can be read
# twice (opening it opens the file again): these builds work, and give the
# targets a build from the file gives.
expect_success "$metawarp" build plain.mwdb "$genome" "${taxonomy[@]}" -q
"$metawarp" info plain.mwdb --targets | cut -f 1-7 >plain.targets
# --partition-size estimates the partitions from the inputs' sizes: a FIFO's
# is not known (and reading it to guess would lose its bytes), so it counts
# nothing and the build is one pass.
for sized in "" "--partition-size 1g"; do
  feed refs.fifo "$genome"
  # shellcheck disable=SC2086
  expect_success timeout 20 "$metawarp" build fifo.mwdb refs.fifo "${taxonomy[@]}" $sized -q
  wait "$writer"
  "$metawarp" info fifo.mwdb --targets | cut -f 1-7 | cmp -s - plain.targets ||
    fail "the build from a FIFO ($sized) holds other targets"
done
expect_success timeout 20 "$metawarp" build stdin.mwdb /dev/stdin --partitions 2 "${taxonomy[@]}" \
  -q <"$genome"
"$metawarp" info stdin.mwdb --targets | cut -f 1-7 | cmp -s - plain.targets ||
  fail "the build from /dev/stdin holds other targets"
pass "a build of one pass reads a FIFO; a regular file behind /dev/stdin is read twice"

# The query reads its reads once, also with the database in parts: a FIFO works.
reads="$data/reads_R1.fq"
expect_success "$metawarp" query plain.mwdb "$reads" -o plain.tsv -q
mkfifo reads.fifo
for parts in 0 2; do
  feed reads.fifo "$reads"
  expect_success timeout 20 "$metawarp" query plain.mwdb reads.fifo -o fifo.tsv \
    --partitions "$parts" -q
  wait "$writer"
  cmp -s plain.tsv fifo.tsv || fail "the query of a FIFO (--partitions $parts) differs"
done
pass "the query reads a FIFO of reads, whole or with the database in parts"

# A database is read with pread, several times (parts, checksums): one that
# is not a regular file is refused before it is opened (a FIFO's open would
# wait for a writer).
mkfifo db.fifo
feed db.fifo plain.mwdb
expect_error "database 'db.fifo': a FIFO (named pipe), not a database file" \
  timeout 20 "$metawarp" info db.fifo
expect_error "database 'db.fifo': a FIFO" timeout 20 "$metawarp" query db.fifo "$reads" \
  -o out.tsv -q
expect_error "database 'db.fifo': a FIFO" timeout 20 "$metawarp" query db.fifo "$reads" -o out.tsv \
  --partitions 2 -q
stop_feeding
[ ! -e out.tsv ] || fail "a refused query wrote out.tsv"
echo "all input checks passed"
