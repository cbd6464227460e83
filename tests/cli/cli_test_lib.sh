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
  local expected=$1
  shift
  "$@" >"$work/stdout" 2>"$work/stderr"
  local status=$?
  [ "$status" -eq 1 ] || fail "$* exited $status, not 1; stderr: $(cat "$work/stderr")"
  local errors
  errors=$(grep -c '^metawarp: error: ' "$work/stderr")
  [ "$errors" -eq 1 ] || fail "$*: $errors 'metawarp: error:' lines: $(cat "$work/stderr")"
  grep '^metawarp: error: ' "$work/stderr" | grep -qF -- "$expected" ||
    fail "$*: no '$expected' in the error: $(cat "$work/stderr")"
  pass "$* -> status 1: $(grep '^metawarp: error: ' "$work/stderr")"
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
