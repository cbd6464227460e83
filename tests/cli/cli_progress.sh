# Progress on stderr (docs/cli-query.md, "Progress and summary"): nothing
# under --quiet; when stderr is not a terminal, plain lines only (no carriage
# returns or escape codes) and the stage line only with --verbose; on a
# terminal, one line rewritten in place.
source "$(dirname "$0")/cli_test_lib.sh"

build_test_database db.mwdb
r1=$data/reads_R1.fq
r2=$data/reads_R2.fq
printf 'a\t%s\nb\t%s\t%s\n' "$r1" "$r1" "$r2" >sheet.tsv

# no_control_characters: stderr holds no carriage return and no escape.
no_control_characters() {
  if grep -q "$(printf '[\r\033]')" "$work/stderr"; then
    fail "control characters on stderr that is not a terminal: $(cat -A "$work/stderr")"
  fi
}

# --quiet: stderr stays empty, for one sample, many and the build.
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -o out.tsv -q
[ ! -s stderr ] || fail "--quiet query printed: $(cat stderr)"
expect_success "$metawarp" query db.mwdb --samples sheet.tsv -q
[ ! -s stderr ] || fail "--quiet samples query printed: $(cat stderr)"
expect_success "$metawarp" build db2.mwdb "$data/genomes" --no-taxonomy -q -t 2
[ ! -s stderr ] || fail "--quiet build printed: $(cat stderr)"
pass "--quiet prints nothing"

# Not a terminal (a file): the load line, the summary, plain lines only.
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -o out.tsv --device cpu
no_control_characters
grep -q '^query: loading database db.mwdb \.\.\. done ([0-9.]* [kMG]*B, [0-9.]* s)$' stderr ||
  fail "no load line: $(cat stderr)"
grep -q '^query: [0-9]* read pairs, [0-9]* classified' stderr || fail "no summary: $(cat stderr)"
grep -q 'stages in thread-seconds' stderr && fail "the stage line without --verbose"
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -o out.tsv --device cpu --verbose
grep -q '^query: stages in thread-seconds' stderr || fail "no stage line with --verbose"
expect_error "excludes" "$metawarp" query db.mwdb "$r1" -o out.tsv --verbose --quiet
pass "not a terminal: load line, summary, stage line only with --verbose"

# A query that runs longer than the 5 s between plain lines (its input
# stalls for 7 s) prints progress lines, each a plain line.
{ head -n 400 "$r1"; sleep 7; tail -n +401 "$r1"; } |
  "$metawarp" query db.mwdb - -o slow.tsv --batch-size 50 --device cpu 2>stderr ||
  fail "the slow query failed: $(cat stderr)"
no_control_characters
grep -Eq '^query: [0-9.]+( [kMG])? reads, [0-9.]+( [kMG])? reads/s$' stderr ||
  fail "no progress line in 7 s: $(cat stderr)"
grep -q 'ETA' stderr && fail "an ETA for standard input, whose size is unknown: $(cat stderr)"
cmp -s slow.tsv <("$metawarp" query db.mwdb "$r1" -o - -q) || fail "the slow query's output differs"
pass "not a terminal: a plain progress line while the query runs"

# A failed load ends its line, so the error starts a line of its own.
echo "not a database" >bad.mwdb
expect_error "bad.mwdb" "$metawarp" query bad.mwdb "$r1" -o out.tsv
grep -q '^query: loading database bad.mwdb \.\.\. failed$' stderr ||
  fail "the load line was not ended: $(cat stderr)"

# On a terminal (script(1) gives the command one): the line is rewritten in place.
if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then
  script -qec "{ head -n 400 '$r1'; sleep 3; tail -n +401 '$r1'; } |
      '$metawarp' query db.mwdb - -o tty.tsv --batch-size 50 --device cpu" /dev/null >tty.log ||
    fail "the query on a terminal failed: $(cat tty.log)"
  grep -q "$(printf '\r')query: [0-9]* reads, " tty.log ||
    fail "no refreshed progress line on a terminal: $(cat -A tty.log)"
  pass "a terminal: the progress line is rewritten in place"
else
  echo "skip: no script(1) to give the query a terminal"
fi
echo "all progress checks passed"
