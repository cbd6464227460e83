# Without a usable GPU (a CPU-only build, or a host without a GPU or driver),
# `--device auto` runs on the CPU and says so in one plain line of its own,
# "<command>: no GPU found: running on the CPU", once per command; the
# reason (the driver's words, or a build without CUDA) only with -v; nothing
# with -q or --device cpu. `serve` says it before its loading line, not
# inside it.
source "$(dirname "$0")/cli_test_lib.sh"

if nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIPPED: a GPU is usable here, so there is no notice to check"
  exit 77
fi
notice="no GPU found: running on the CPU"

# only_notice <command>: stderr holds the notice exactly once, as a whole
# line, and no CUDA error text.
only_notice() {
  local count
  count=$(grep -cx "$1: $notice" "$work/stderr")
  [ "$count" -eq 1 ] || fail "$1: the notice as a line of its own $count times: $(cat "$work/stderr")"
  grep -q "CUDA" "$work/stderr" && fail "$1: CUDA words without -v: $(cat "$work/stderr")"
  pass "$1: one line '$1: $notice'"
}

expect_success "$metawarp" build db.mwdb "$data/genomes" --taxonomy "$data/taxonomy" \
  --seqid2taxid "$data/seqid2taxid.map" -t 2
only_notice build
expect_success "$metawarp" query db.mwdb "$data/reads_R1.fq" "$data/reads_R2.fq" -o reads.tsv -t 2
only_notice query
printf 'a\t%s\nb\t%s\n' "$data/reads_R1.fq" "$data/reads_R1.fq" >sheet.tsv
expect_success "$metawarp" query db.mwdb --samples sheet.tsv -o '{sample}.tsv' -t 2
only_notice query

# -v: the same line, with why.
expect_success "$metawarp" query db.mwdb "$data/reads_R1.fq" -o reads.tsv -t 2 -v
grep -qx "query: $notice (.*)" "$work/stderr" || fail "-v: no reason: $(cat "$work/stderr")"
pass "-v: $(grep "$notice" "$work/stderr")"

# -q and --device cpu: nothing.
expect_success "$metawarp" query db.mwdb "$data/reads_R1.fq" -o reads.tsv -t 2 -q
[ ! -s "$work/stderr" ] || fail "-q printed: $(cat "$work/stderr")"
expect_success "$metawarp" query db.mwdb "$data/reads_R1.fq" -o reads.tsv -t 2 --device cpu
grep -q "GPU" "$work/stderr" && fail "--device cpu: $(cat "$work/stderr")"
pass "no notice with -q or --device cpu"

# serve: the notice before the loading line, each a line of its own.
set -m  # the server's own process group: a signal to it reaches it alone
"$metawarp" serve db.mwdb --socket s.sock -t 2 2>serve.log &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null' EXIT
for _ in $(seq 600); do
  grep -q '^serve: listening on ' serve.log && break
  kill -0 "$server_pid" 2>/dev/null || fail "serve ended: $(cat serve.log)"
  sleep 0.1
done
cp serve.log "$work/stderr"
only_notice serve
grep -q '^serve: loading database db.mwdb' serve.log || fail "serve: the loading line does not start a line: $(cat serve.log)"
echo "all notice checks passed"
