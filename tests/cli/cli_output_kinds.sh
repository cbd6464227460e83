# What an output path may be: a new path or a regular file with one name,
# symbolic links followed. Devices, FIFOs, directories and hard-linked files
# are refused before any work, naming the path and what it is.
source "$(dirname "$0")/cli_test_lib.sh"

ref="$data/genomes/genome_000001.fna"

# A FIFO: refused at once (writing would block until a reader came, and a
# rename would replace the FIFO), and still a FIFO afterwards.
mkfifo fifo
expect_error "FIFO" timeout 60 "$metawarp" build fifo "$ref" -q --no-taxonomy
[ -p fifo ] || fail "the FIFO was replaced"

# A device node. Never /dev/null itself: a broken check would replace it.
# As root, a private node with /dev/null's numbers shows the same thing.
if [ "$(id -u)" -eq 0 ] && mknod null c 1 3 2>/dev/null; then
  expect_error "character device" "$metawarp" build null "$ref" -q --no-taxonomy
  [ -c null ] || fail "the device node was replaced"
else
  echo "skip: device node (needs root to make one)"
fi

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
