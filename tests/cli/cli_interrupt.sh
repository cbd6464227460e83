# Interrupts: SIGINT during a build and during a query leaves no temporary
# file (and, for the query, no stale old output), and the process ends as
# killed by SIGINT. No timing is asserted: the signal is sent as soon as the
# temporary exists (the database's while it is written, about a second for
# the 600 MB made here; the query's for its whole run).
source "$(dirname "$0")/cli_test_lib.sh"

# Background jobs of a shell without job control ignore SIGINT, and metawarp
# keeps a signal that was ignored when it started; with job control they do not.
set -m

# wait_for_temporary <pid> <glob>: until a file matching the glob exists, the
# process has ended, or about 60 s have passed. Prints whether it was seen.
wait_for_temporary() {
  local pid=$1 pattern=$2
  for _ in $(seq 1200); do
    if compgen -G "$pattern" >/dev/null; then
      echo seen
      return
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "not seen"
}

# interrupt <glob> <command...>: runs the command in the background, sends
# SIGINT once its temporary appears, and checks how it ended.
interrupt() {
  local pattern=$1
  shift
  "$@" 2>"$work/stderr" &
  local pid=$!
  local seen
  seen=$(wait_for_temporary "$pid" "$pattern")
  kill -INT "$pid" 2>/dev/null
  wait "$pid"
  local status=$?
  no_temporaries .
  [ "$seen" = seen ] || fail "$* ended (status $status) before its temporary was seen: $(cat "$work/stderr")"
  [ "$status" -eq 130 ] || fail "$* ended with $status after SIGINT, not 130 (killed by SIGINT)"
  pass "$*: interrupted while writing, killed by SIGINT, no temporary left"
}

# 100 Mbp of random sequence; windows of 64 make its database about 600 MB.
{
  echo ">random"
  random_bases 75000000
} >random.fa
echo "old database" >big.mwdb
interrupt 'big.mwdb.tmp-*' "$metawarp" build big.mwdb random.fa --no-taxonomy -w 64 -q -t 2
[ "$(cat big.mwdb)" = "old database" ] || fail "an interrupted build did not keep the old database"

# A query reading about 200,000 pairs: its outputs' temporaries exist while
# it runs; the interrupt removes them and the old outputs.
build_test_database db
for _ in $(seq 100); do cat "$data/reads_R1.fq"; done >many_R1.fq
for _ in $(seq 100); do cat "$data/reads_R2.fq"; done >many_R2.fq
echo "old" >out.tsv
echo "old" >out.report
interrupt 'out.tsv.tmp-*' "$metawarp" query db many_R1.fq many_R2.fq -o out.tsv --report out.report -q -t 2
[ ! -e out.tsv ] && [ ! -e out.report ] || fail "an interrupted query left an old output"
rm -f random.fa many_R1.fq many_R2.fq big.mwdb
echo "all interrupt checks passed"
