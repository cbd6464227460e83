# Exit status and messages: every command-line mistake is one
# "metawarp: error: ..." line and status 1; --help and --version go to stdout
# with status 0.
source "$(dirname "$0")/cli_test_lib.sh"

build_test_database db
reads="$data/reads_R1.fq"

# --help and --version: stdout, status 0, nothing on stderr.
for args in "--help" "build --help" "info --help" "query --help" "classify --help" "--version"; do
  # shellcheck disable=SC2086
  "$metawarp" $args >"$work/stdout" 2>"$work/stderr"
  status=$?
  [ "$status" -eq 0 ] || fail "metawarp $args exited $status"
  [ -s "$work/stdout" ] || fail "metawarp $args printed nothing on stdout"
  [ ! -s "$work/stderr" ] || fail "metawarp $args wrote to stderr: $(cat "$work/stderr")"
  pass "metawarp $args -> stdout, status 0"
done
grep -q '^Usage: .* build ' <("$metawarp" build --help) || fail "build --help is not build's help"

# Command-line mistakes.
expect_error "command is required" "$metawarp"
expect_error "--bogus" "$metawarp" --bogus
expect_error "--bogus" "$metawarp" query db "$reads" --bogus
expect_error "database is required" "$metawarp" info
expect_error "reads is required" "$metawarp" query db
expect_error "--threads" "$metawarp" query db "$reads" -t abc
expect_error "--threads" "$metawarp" build new.mwdb "$data/genomes" -t -1
expect_error "--threads 0: must be a whole number between 1 and" "$metawarp" query db "$reads" -t 0
expect_error "--batch-size 0: must be a whole number between 1 and" "$metawarp" query db "$reads" \
  --batch-size 0
expect_error "--gpu-lanes 0: must be a whole number between 1 and" "$metawarp" query db "$reads" \
  --gpu-lanes 0
expect_error "--device" "$metawarp" query db "$reads" --device tpu
expect_error "--max-candidates" "$metawarp" query db "$reads" --max-candidates 17 -o ''
expect_error "unknown rank" "$metawarp" query db "$reads" --lowest kingdoms
expect_error "nonexistent.mwdb" "$metawarp" info nonexistent.mwdb
expect_error "nonexistent.fq" "$metawarp" query db nonexistent.fq
expect_error "missing.map" "$metawarp" build new.mwdb "$data/genomes" --seqid2taxid missing.map
expect_error "missing_dir" "$metawarp" build new.mwdb "$data/genomes" --taxonomy missing_dir
expect_error "--interleaved" "$metawarp" query db "$reads" "$reads" --interleaved
expect_error "reads" "$metawarp" query db "$reads" "$reads" "$reads"
expect_error "standard output" "$metawarp" build - "$data/genomes"
[ ! -e new.mwdb ] || fail "a refused build wrote new.mwdb"

# A failure after the command started is reported the same way.
printf '@r\nACGT\n+\nII\n' >bad.fq
expect_error "bad.fq" "$metawarp" query db bad.fq -o out.tsv -q
echo "all exit status checks passed"
