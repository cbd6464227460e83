# A resident server and requests as any program may send them
# (tests/cli/serve_peer.cpp): a malformed one (an empty command line, no
# descriptors, not a request at all) is answered with the reason and the
# server goes on; a client that sends its request a byte at a time delays no
# other client's query and is dropped at the request's deadline.
source "$(dirname "$0")/serve_test_lib.sh"
peer=$4

r1=$data/reads_R1.fq
build_test_database db
serve_command=("$metawarp" serve db)
slow_pid=
cleanup() {
  [ -n "$slow_pid" ] && kill "$slow_pid" 2>/dev/null
  stop_server
}
trap cleanup EXIT
for seconds in 0 nan 3601 x; do
  expect_error "--request-seconds" "$metawarp" serve db --socket bad.sock --request-seconds "$seconds"
done
[ ! -e bad.sock ] || fail "a refused serve left its socket"
start_server s.sock --request-seconds 3

# expect_refusal <what the refusal must say> <serve_peer arguments...>
expect_refusal() {
  local expected=$1
  shift
  "$peer" "$@" >reply.txt 2>&1 || fail "serve_peer $*: $(cat reply.txt)"
  grep -q '^status 1$' reply.txt && grep '^refusal: ' reply.txt | grep -qF -- "$expected" ||
    fail "serve_peer $*: not refused with '$expected': $(cat reply.txt)"
  kill -0 "$server_pid" 2>/dev/null || fail "serve_peer $*: the server ended: $(cat serve.log)"
  pass "serve_peer $*: $(grep '^refusal: ' reply.txt)"
}
# An empty argument list (metawarp's client never sends one) killed the server.
expect_refusal "a request without a command line" request s.sock 4
expect_refusal "came with 0 descriptors" request s.sock 0 metawarp query db "$r1"
expect_refusal "came with 3 descriptors" request s.sock 3 metawarp query db "$r1"
expect_refusal "not a metawarp query message" garbage s.sock $'not a request\n'
grep -q 'refused the request of pid .*: a request without a command line' serve.log ||
  fail "the server's log does not say what it refused: $(cat serve.log)"

# The server still answers a query as it would run by itself.
"$metawarp" query --server s.sock db "$r1" -o served.tsv -q --device cpu -t 2 ||
  fail "a query after the malformed requests failed"
"$metawarp" query db "$r1" -o alone.tsv -q --device cpu -t 2
cmp -s served.tsv alone.tsv || fail "after the malformed requests: the outputs differ"
pass "the server answers queries after malformed requests"

# Queries sent together each get their own outputs and status; a request
# refused while a query runs is said on the server's stderr, never on the
# query's client's.
for _ in $(seq 20); do cat "$r1"; done >many.fq
"$metawarp" query --server s.sock db many.fq -o many.tsv --device cpu -t 2 --batch-size 64 \
  2>many.stderr &
many_pid=$!
for i in 1 2 3; do
  "$metawarp" query --server s.sock db "$r1" -o "together$i.tsv" -q --device cpu -t 2 \
    2>"together$i.stderr" &
done
expect_refusal "a request without a command line" request s.sock 4
for job in $(jobs -p); do
  [ "$job" = "$server_pid" ] || wait "$job" || fail "a query sent together with others failed"
done
for i in 1 2 3; do
  cmp -s "together$i.tsv" alone.tsv || fail "query $i of those sent together differs"
  [ ! -s "together$i.stderr" ] || fail "query $i: $(cat "together$i.stderr")"
done
grep -q '^serve:' many.stderr && fail "the server's own messages reached a client: $(cat many.stderr)"
[ -s many.tsv ] || fail "the long query wrote nothing"
pass "queries sent together: each its own outputs and messages"

# A client that sends a byte every 0.2 s (the whole request would take about
# 15 s) holds one connection; a query sent after it is answered while it still
# sends (it sends more bytes after the query's end), and it is dropped when
# its 3 s are up, its request not whole.
head -n 8 "$r1" >two.fq
"$peer" slow s.sock 200 >slow.txt 2>&1 &
slow_pid=$!
wait_for_line slow.txt connected
"$metawarp" query --server s.sock db two.fq -o quick.tsv -q --device cpu -t 2 ||
  fail "the query beside the slow client failed"
sent_before=$(grep -c '^sent ' slow.txt)
wait "$slow_pid" || fail "the slow client was not dropped: $(tail -n 1 slow.txt)"
slow_pid=
dropped_after=$(sed -n 's/^dropped after \([0-9]*\) bytes$/\1/p' slow.txt)
[ -n "$dropped_after" ] && [ "$dropped_after" -gt "$sent_before" ] ||
  fail "the query was answered only after the slow client's $sent_before bytes: $(tail -n 1 slow.txt)"
pass "a query is answered while a slow client still sends its request (byte $sent_before)"
grep -q 'refused the request of pid .*before the deadline' serve.log ||
  fail "the server's log does not say why it dropped the slow client: $(cat serve.log)"
pass "the slow client is dropped at its request's deadline: $(tail -n 1 slow.txt)"
"$metawarp" query --server s.sock db two.fq -o quick_again.tsv -q --device cpu -t 2 ||
  fail "a query after the slow client failed"
cmp -s quick.tsv quick_again.tsv || fail "the query after the slow client differs"
echo "all serve request checks passed"
