# Memory (issue 25): a partitioned query's memory does not grow with its
# parts and stays within --max-memory, whose least value (the one the error
# suggests) runs; running out of memory names the stage and the options that
# lower it, with status 1, one error line, no temporary and no output left.
source "$(dirname "$0")/cli_test_lib.sh"

if [ -n "${METAWARP_SANITIZED:-}" ]; then
  echo "skipped: under AddressSanitizer memory is not the program's (shadow memory, no ulimit -v)"
  exit 77
fi
if [ ! -x /usr/bin/time ]; then
  echo "skipped: /usr/bin/time (Debian package time) measures the peak memory"
  exit 77
fi

# Every run is on the CPU: on a GPU machine the CUDA runtime alone takes about
# 150 MB of resident memory, which is not the memory these rules bound.
build_test_database db.mwdb
r1=$data/reads_R1.fq
r2=$data/reads_R2.fq
mib=1048576

# peak_kib <command...>: runs it (status 0 expected, stdout and stderr kept as
# expect_success keeps them) and prints its peak resident memory in KiB.
peak_kib() {
  /usr/bin/time -f '%M' -o "$work/peak" "$@" >"$work/stdout" 2>"$work/stderr"
  local status=$?
  [ "$status" -eq 0 ] || fail "$* exited $status; stderr: $(cat "$work/stderr")"
  tail -n 1 "$work/peak"
}

# Many parts: the memory does not grow with them (it grew by about 0.5 MB a
# part: 2.6 GB for --partitions 5000). More parts than useful are clamped,
# with a notice.
expect_success "$metawarp" query --device cpu db.mwdb "$r1" "$r2" -q -o whole.tsv
two=$(peak_kib "$metawarp" query --device cpu db.mwdb "$r1" "$r2" -t 2 --partitions 2 -o two.tsv)
many=$(peak_kib "$metawarp" query --device cpu db.mwdb "$r1" "$r2" -t 2 --partitions 5000 -o many.tsv)
[ "$many" -lt 102400 ] || fail "--partitions 5000: peak ${many} KiB, 100 MiB at most expected"
[ "$many" -lt $((two + 16384)) ] ||
  fail "--partitions 5000: peak ${many} KiB, 2 parts ${two} KiB: grows with the parts"
grep -q "^query: --partitions 5000: database db.mwdb gives at most [0-9]* useful parts" stderr ||
  fail "no notice of the parts clamped: $(cat stderr)"
cmp -s whole.tsv many.tsv || fail "--partitions 5000: output differs from the whole database's"
cmp -s whole.tsv two.tsv || fail "--partitions 2: output differs from the whole database's"
pass "--partitions 5000: $(grep -o 'reading it in [0-9]*' stderr) parts, peak ${many} KiB (2 parts: ${two} KiB)"

# The least --max-memory, as the error names it, runs within it: its peak
# resident memory is at most that, and it runs under a ulimit -v of that
# and 256 MiB for the address space a process reserves without using it
# (thread stacks, malloc's arenas, the program's code).
expect_error "allow at least --max-memory" \
  "$metawarp" query --device cpu db.mwdb "$r1" "$r2" --max-memory 1M -o x.tsv
[ -e x.tsv ] && fail "x.tsv written by a refused query"
least=$(sed -n 's/.*allow at least --max-memory \([0-9]*\).*/\1/p' stderr)
[ -n "$least" ] || fail "no least --max-memory in: $(cat stderr)"
peak=$( (ulimit -v $(((least + 256 * mib) / 1024)) &&
  peak_kib "$metawarp" query --device cpu db.mwdb "$r1" "$r2" -t 2 -v --max-memory "$least" -o least.tsv) ) ||
  exit 1
cmp -s whole.tsv least.tsv || fail "--max-memory $least: output differs from the whole database's"
[ "$peak" -le $((least / 1024)) ] || fail "--max-memory $least: peak ${peak} KiB, above the limit"
pass "--max-memory $least (the least): peak ${peak} KiB; $(grep -o 'in parts \.\.\. done ([^)]*' stderr)"

# Out of memory: the stage that ran out and what lowers it, one error line,
# status 1, no temporary and no output left (an older file at an output path
# removed too). A database of random references (68 MB; the taxonomy maps
# test_data's genomes only, so --no-taxonomy), queried whole in 300 MiB of
# address space: the program takes about 150 MiB (a query of test_data's
# database runs in it), this database 450.
mkdir refs
for i in 1 2 3 4; do
  { echo ">random_$i"; random_bases 4500000; } >refs/random_$i.fa
done
expect_success "$metawarp" build --device cpu big.mwdb refs --no-taxonomy -q -t 2
within() {  # within <KiB of address space> <command...>
  (ulimit -v "$1" && shift && exec "$@")
}
echo "older output" >old.tsv
expect_error "out of memory loading database 'big.mwdb' whole: read it in parts with --max-memory" \
  within $((300 * 1024)) "$metawarp" query --device cpu big.mwdb "$r1" -t 2 -o old.tsv
[ -e old.tsv ] && fail "old.tsv left by a query that ran out of memory"
no_temporaries .
# What it says to do works there.
expect_success within $((300 * 1024)) "$metawarp" query --device cpu big.mwdb "$r1" -t 2 --max-memory 64M \
  -o parts.tsv
pass "--max-memory 64M in the same 300 MiB: $(grep -o 'in parts \.\.\. done ([^)]*' stderr)"

# A build's tables in 200 MiB of address space (it needs about 400).
expect_error "out of memory building the database's tables (one partition, 2 threads): build in more partitions (--partitions 2, or --partition-size BYTES), or with fewer --threads" \
  within $((200 * 1024)) "$metawarp" build --device cpu built.mwdb refs --no-taxonomy -t 2
[ -e built.mwdb ] && fail "built.mwdb left by a build that ran out of memory"
no_temporaries .
