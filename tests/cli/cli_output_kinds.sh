# What an output path may be: a new path or a regular file with one name
# (replaced atomically), symbolic links followed (cli_output_links.sh: whose
# links), a character device or a FIFO (written directly: `-o /dev/null`), or
# one of the process's descriptors (/dev/stdout, /dev/stderr, /dev/fd/N,
# /proc/self/fd/N: written through it, so `>> app.log` stays appended).
# Directories and hard-linked files are refused before any work, naming the
# path and what it is; the database (written at offsets) takes only new
# paths and regular files.
source "$(dirname "$0")/cli_test_lib.sh"

ref="$data/genomes/genome_000001.fna"
reads="$data/reads_R1.fq"
build_test_database db
"$metawarp" query db "$reads" -q -o expected.tsv || fail "the reference query"
{
  echo "earlier line"
  cat expected.tsv
} >expected.log
# Mates 2 cut short: a query that fails after it has written output.
head -n 6001 "$data/reads_R2.fq" >r2_truncated.fq

# A FIFO: the database is refused at once (it is written at offsets), and
# the FIFO stays a FIFO.
mkfifo fifo
expect_error "FIFO" timeout 60 "$metawarp" build fifo "$ref" -q --no-taxonomy
[ -p fifo ] || fail "the FIFO was replaced"
# A query output goes to the FIFO's reader.
timeout 60 cat fifo >from_fifo.tsv 2>/dev/null &
reader=$!
expect_success timeout 60 "$metawarp" query db "$reads" -q -o fifo
wait "$reader" || fail "the FIFO's reader failed"
cmp -s from_fifo.tsv expected.tsv || fail "the FIFO's reader did not get the output"
[ -p fifo ] || fail "the FIFO was replaced"
pass "a FIFO: the database refused, a query output written to its reader"

# A device node. /dev/null itself only once a private node with its numbers
# (as root) showed that it is written, not replaced or removed.
null_checked=no
if [ "$(id -u)" -ne 0 ]; then
  null_checked=yes  # without root nothing can replace /dev/null
elif mknod null c 1 3 2>/dev/null; then
  expect_error "character device" "$metawarp" build null "$ref" -q --no-taxonomy
  [ -c null ] || fail "the device node was replaced"
  expect_success "$metawarp" query db "$reads" -q -o null --report null --kraken-output null
  [ -c null ] || fail "a query replaced the device node"
  expect_error "r2_truncated.fq" "$metawarp" query db "$reads" r2_truncated.fq -q -o null
  [ -c null ] || fail "a failed query removed the device node"
  no_temporaries .
  null_checked=yes
  pass "a device node: the database refused, query outputs written to it, never removed"
else
  echo "skip: device node (mknod failed), and so /dev/null"
fi
if [ "$null_checked" = yes ]; then
  expect_success "$metawarp" query db "$reads" -q -o /dev/null --report /dev/null \
    --kraken-output /dev/null --abundance /dev/null
  [ -c /dev/null ] || fail "/dev/null is no longer a character device"
  no_temporaries /dev
fi

# Descriptors: written through, never replaced. stdout appended to a log
# keeps the log's earlier content; a pipe gets the output.
echo "earlier line" >app.log
"$metawarp" query db "$reads" -q -o /dev/stdout >>app.log || fail "query -o /dev/stdout >>app.log"
cmp -s app.log expected.log || fail "-o /dev/stdout did not append to the log: $(head -n 2 app.log)"
"$metawarp" query db "$reads" -q -o /dev/stdout | cat >piped.tsv
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "query -o /dev/stdout | cat: status ${PIPESTATUS[0]}"
cmp -s piped.tsv expected.tsv || fail "-o /dev/stdout into a pipe: not the output"
echo "earlier line" >err.log
"$metawarp" query db "$reads" -q -o /dev/stderr 2>>err.log || fail "query -o /dev/stderr 2>>err.log"
cmp -s err.log expected.log || fail "-o /dev/stderr did not append to the log: $(head -n 2 err.log)"
for path in /dev/fd/3 /proc/self/fd/3; do
  echo "earlier line" >fd.log
  "$metawarp" query db "$reads" -q -o "$path" 3>>fd.log || fail "query -o $path 3>>fd.log"
  cmp -s fd.log expected.log || fail "-o $path did not append to the log"
done
pass "/dev/stdout, /dev/stderr, /dev/fd/3, /proc/self/fd/3: appended logs kept, a pipe written"
# A failed query cannot take back what went through a descriptor, and removes nothing.
echo "earlier line" >failed.log
"$metawarp" query db "$reads" r2_truncated.fq -q -o /dev/stdout >>failed.log 2>/dev/null &&
  fail "the query with mates 2 cut short succeeded"
[ "$(head -n 1 failed.log)" = "earlier line" ] || fail "a failed query replaced or removed the log"
# Descriptors that cannot take an output, and the database, are refused.
expect_error "descriptor 9 is not open" "$metawarp" query db "$reads" -q -o /dev/fd/9
expect_error "for reading only" "$metawarp" query db "$reads" -q -o /dev/fd/3 3<expected.tsv
expect_error "descriptor" "$metawarp" build /dev/stdout "$ref" -q --no-taxonomy
no_temporaries .
pass "descriptors: a failed query kept the log; closed, read-only and database descriptors refused"

mkdir folder
expect_error "directory" "$metawarp" build folder "$ref" -q --no-taxonomy
[ -d folder ] || fail "the folder was replaced"

echo "shared" >one
ln one two
expect_error "2 hard links" "$metawarp" build one "$ref" -q --no-taxonomy
[ "$(cat two)" = "shared" ] && [ "$(cat one)" = "shared" ] || fail "a hard-linked file changed"

expect_error "its folder" "$metawarp" build no/such/folder/db "$ref" -q --no-taxonomy
no_temporaries .

# A symbolic link is followed: the database replaces its target, the link stays.
mkdir real
echo "old database" >real/db.mwdb
ln -s real/db.mwdb link.mwdb
expect_success "$metawarp" build link.mwdb "$ref" -q --no-taxonomy
[ -L link.mwdb ] || fail "the link was replaced"
expect_success "$metawarp" info real/db.mwdb
no_temporaries .

# A rebuild keeps the file's permission bits.
chmod 0640 real/db.mwdb
expect_success "$metawarp" build link.mwdb "$ref" -q --no-taxonomy
[ "$(stat -c %a real/db.mwdb)" = "640" ] || fail "mode $(stat -c %a real/db.mwdb), not 640"

# Query outputs through a link: written at the target.
ln -s real/out.tsv out-link.tsv
expect_success "$metawarp" query real/db.mwdb "$data/reads_R1.fq" -o out-link.tsv -q
[ -L out-link.tsv ] && [ -s real/out.tsv ] || fail "the query output did not reach the link's target"
echo "all output-kind checks passed"
