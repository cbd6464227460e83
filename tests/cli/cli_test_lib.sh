# Shared by the CLI tests: sourced with the binary, the test data folder and a
# scratch folder as $1 $2 $3. Every check prints what it checked; the first
# failure ends the test with status 1.
set -uo pipefail

metawarp=$1
data=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1


fail() {
  echo "FAIL: $*" >&2
  exit 1
}

pass() { echo "ok: $*"; }

# expect_error <what the message must contain> <command...>: exit status 1,
# and stderr holds exactly one line starting "metawarp: error: ", which
# contains the text (notices such as "query: ... running on the CPU" may
# come before it).
expect_error() {
  expect_failure 1 "$@"
}

# expect_failure <status> <what the message must contain> <command...>: as
# expect_error, with that exit status (Kraken 2's command lines fail with
# Kraken 2's statuses).
expect_failure() {
  local want=$1 expected=$2
  shift 2
  "$@" >"$work/stdout" 2>"$work/stderr"
  local status=$?
  [ "$status" -eq "$want" ] || fail "$* exited $status, not $want; stderr: $(cat "$work/stderr")"
  local errors
  errors=$(grep -c '^metawarp: error: ' "$work/stderr")
  [ "$errors" -eq 1 ] || fail "$*: $errors 'metawarp: error:' lines: $(cat "$work/stderr")"
  grep '^metawarp: error: ' "$work/stderr" | grep -qF -- "$expected" ||
    fail "$*: no '$expected' in the error: $(cat "$work/stderr")"
  pass "$* -> status $want: $(grep '^metawarp: error: ' "$work/stderr")"
}

# expect_success <command...>: exit status 0.
expect_success() {
  "$@" >"$work/stdout" 2>"$work/stderr"
  local status=$?
  [ "$status" -eq 0 ] || fail "$* exited $status; stderr: $(cat "$work/stderr")"
  pass "$* -> status 0"
}

# same_bytes <file> <copy>: the file is unchanged.
same_bytes() {
  cmp -s "$1" "$2" || fail "$1 changed"
}

# no_temporaries <folder>: no *.tmp-* left.
no_temporaries() {
  local left
  left=$(find "$1" -name '*.tmp-*' | head -n 5)
  [ -z "$left" ] || fail "temporaries left: $left"
}

# check_report_shape <report>: as Kraken2 report readers expect it: 6
# tab-separated columns, %6.2f, counts, rank codes, unclassified first (when
# present), then root, names indented by 2 per level, never deeper than one
# level below the line before.
check_report_shape() {
  awk -F'\t' '
    NF != 6 { print "line " NR ": " NF " columns"; bad = 1; exit }
    $1 !~ /^ *[0-9]+\.[0-9][0-9]$/ || length($1) < 6 { print "line " NR ": percent"; bad = 1; exit }
    $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+$/ { print "line " NR ": counts"; bad = 1; exit }
    $4 !~ /^[URDKPCOFGS][0-9]*$/ { print "line " NR ": rank code " $4; bad = 1; exit }
    { match($6, /^ */); indent = RLENGTH }
    $4 == "U" && (NR != 1 || $6 != "unclassified" || $5 != 0) { print "line " NR ": U"; bad = 1; exit }
    $4 != "U" && !seen { seen = 1
      if ($4 != "R" || $6 != "root" || indent) { print "line " NR ": not root"; bad = 1; exit } }
    $4 != "U" && (indent % 2 || indent > last + 2) { print "line " NR ": indent"; bad = 1; exit }
    $4 != "U" { last = indent }
    END { if (!seen && !bad) { print "no root line"; bad = 1 } exit bad }' "$1" ||
    fail "$1 is not shaped as report readers expect"
}

# query_outputs <prefix>: the four output options of a query (TSV, Kraken
# output, report, abundances), for files <prefix>.*
query_outputs() {
  echo -o "$1.tsv" --kraken-output "$1.kraken" --report "$1.report" --abundance "$1.abundance"
}

# same_query_outputs <prefix> <other prefix>: those four files, present,
# byte-identical.
same_query_outputs() {
  for f in tsv kraken report abundance; do
    [ -s "$1.$f" ] || fail "$1.$f is missing or empty"
    cmp -s "$1.$f" "$2.$f" || fail "$2.$f differs from $1.$f"
  done
}

# A database of test_data, built once per test.
build_test_database() {
  "$metawarp" build "$1" "$data/genomes" --taxonomy "$data/taxonomy" \
    --seqid2taxid "$data/seqid2taxid.map" -q -t 2 || fail "building the test database"
}

# random_bases <bytes of randomness>: random A/C/G/T, 80 per line, 4/3 bases
# per byte (base64's 64 letters mapped onto ACGT).
random_bases() {
  head -c "$1" /dev/urandom | base64 -w 80 |
    tr 'A-Za-z0-9+/' 'ACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGT'
}
