# build --sync / --no-sync (issue 28): the same database either way; a new
# database is fsynced (the file and its folder) with --sync, the default, and
# not with --no-sync; a database that replaces one is fsynced before the
# rename whatever was asked, so the old one stays intact until the new one is
# durable (docs/reliability.md "Durability of a database"). The fsyncs are
# counted with strace; without a working strace that part is skipped.
source "$(dirname "$0")/cli_test_lib.sh"

build() {  # build <database> <options...>
  local db=$1
  shift
  "$metawarp" build "$db" "$data/genomes" --taxonomy "$data/taxonomy" \
    --seqid2taxid "$data/seqid2taxid.map" -q -t 2 --device cpu "$@"
}

expect_success build synced.mwdb --sync
expect_success build unsynced.mwdb --no-sync
cmp -s synced.mwdb unsynced.mwdb || fail "--sync and --no-sync wrote different databases"
expect_success build default.mwdb
cmp -s synced.mwdb default.mwdb || fail "the default wrote another database"
expect_success build unsynced.mwdb --no-sync  # replacing it
cmp -s synced.mwdb unsynced.mwdb || fail "the replaced database differs"
no_temporaries .
pass "--sync, --no-sync, the default and a replacement write the same bytes"

if ! strace -f -qq -e signal=none -e trace=fsync -o probe.trace true 2>/dev/null; then
  echo "SKIPPED (the fsync counts): strace cannot trace here"
  exit 77
fi
# fsyncs <database> <options...>: the fsync calls of one build.
fsyncs() {
  rm -f build.trace
  # LeakSanitizer cannot run under ptrace (the ASan stage of CI): leaks are
  # checked by the other runs of this script, not the traced ones.
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e signal=none -e trace=fsync,fdatasync -o build.trace \
    "$metawarp" build "$@" "$data/genomes" --taxonomy "$data/taxonomy" \
    --seqid2taxid "$data/seqid2taxid.map" -q -t 2 --device cpu ||
    fail "build $* failed under strace"
  grep -c 'fsync(' build.trace
}
rm -f new.mwdb
n=$(fsyncs new.mwdb --sync)
[ "$n" -eq 2 ] || fail "--sync, a new database: $n fsyncs, not 2 (the file, its folder)"
rm -f new.mwdb
n=$(fsyncs new.mwdb)
[ "$n" -eq 2 ] || fail "the default, a new database: $n fsyncs, not 2"
rm -f new.mwdb
n=$(fsyncs new.mwdb --no-sync)
[ "$n" -eq 0 ] || fail "--no-sync, a new database: $n fsyncs, not 0"
n=$(fsyncs new.mwdb --no-sync)
[ "$n" -eq 2 ] || fail "--no-sync replacing a database: $n fsyncs, not 2 (durable before the rename)"
cmp -s synced.mwdb new.mwdb || fail "the database written under strace differs"
pass "fsyncs: 2 for a new database (--sync, the default), 0 with --no-sync, 2 when replacing"
