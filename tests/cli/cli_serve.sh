# A resident server (`metawarp serve`, `query --server`): a query run by the
# server gives the same outputs, messages and exit status as the same query
# run by itself (paths relative to the client's folder, stdin and stdout the
# client's, other classifier options, a database rebuilt in place); an
# interrupted client's query is cancelled and its outputs removed while the
# server goes on; the socket path is never anything but a socket, and a
# stopped server leaves none behind.
source "$(dirname "$0")/serve_test_lib.sh"

r1=$data/reads_R1.fq
r2=$data/reads_R2.fq
build_test_database db
serve_command=("$metawarp" serve db)
trap stop_server EXIT

# A socket path that holds something else is refused and left as it was.
echo "not a socket" >taken
cp taken taken.copy
expect_error "is not a socket" "$metawarp" serve db --socket taken --device cpu
same_bytes taken taken.copy
expect_error "no metawarp server" "$metawarp" query --server nobody.sock db "$r1"

start_server s.sock
[ -S s.sock ] || fail "no socket at s.sock"
[ "$(stat -c %a s.sock)" = 600 ] || fail "the socket is not private: $(stat -c %a s.sock)"
expect_error "already listens" "$metawarp" serve db --socket s.sock --device cpu

# same_as_alone <name> <query arguments...>: the query through the server and
# by itself, each writing <name>.{server,alone}.{tsv,kraken,report} and its
# stdout; the outputs and stdout must be byte-identical.
same_as_alone() {
  local name=$1
  shift
  local mode
  for mode in server alone; do
    local server=()
    [ $mode = server ] && server=(--server s.sock)
    "$metawarp" query "${server[@]}" db "$@" --kraken-output "$name.$mode.kraken" \
      --report "$name.$mode.report" --device cpu -t 2 -q >"$name.$mode.stdout" 2>"$name.$mode.stderr" ||
      fail "query $mode ($name) failed: $(cat "$name.$mode.stderr")"
  done
  for kind in kraken report stdout; do
    cmp -s "$name.server.$kind" "$name.alone.$kind" || fail "$name: the server's $kind differs"
  done
  [ -s "$name.server.kraken" ] || fail "$name: an empty Kraken output"
  pass "$name: the server's outputs equal the query's own"
}
same_as_alone pairs "$r1" "$r2"
same_as_alone single "$r1" -o -
same_as_alone confidence "$r1" "$r2" --confidence 0.3 --hit-diff 0 -o -
same_as_alone pairs_again "$r1" "$r2"
cmp -s pairs.server.kraken pairs_again.server.kraken || fail "the same query twice differs"

# stdin and stdout are the client's, relative paths its folder's.
mkdir sub
(cd sub && cat "$r1" | "$metawarp" query --server ../s.sock ../db - -o here.tsv -q --device cpu -t 2) ||
  fail "a query of stdin from another folder failed"
"$metawarp" query db "$r1" -o alone.tsv -q --device cpu -t 2
cmp -s sub/here.tsv alone.tsv || fail "stdin from another folder: the outputs differ"
pass "stdin and a relative path from another folder"
[ "$(stat -c %a sub/here.tsv)" = "$(stat -c %a alone.tsv)" ] || fail "the client's umask was not used"

# Errors come as the query's own: the message on the client's stderr, status 1.
expect_error "File does not exist" "$metawarp" query --server s.sock db missing.fq
expect_error "a directory" "$metawarp" query --server s.sock db "$r1" -o sub
# The client's streams are the served query's descriptors 0 to 2: -o /dev/stdout
# writes to the client's stdout (appended here). Its other descriptors are the
# server's own: refused.
echo "earlier line" >appended.tsv
"$metawarp" query --server s.sock db "$r1" -o /dev/stdout -q --device cpu -t 2 >>appended.tsv ||
  fail "a query through the server to /dev/stdout failed"
{
  echo "earlier line"
  cat alone.tsv
} | cmp -s - appended.tsv || fail "-o /dev/stdout through the server: not appended to the client's stdout"
expect_error "descriptor 3 is the server's" "$metawarp" query --server s.sock db "$r1" -o /dev/fd/3
pass "descriptors through the server: the client's stdout written, the server's own refused"
# A reader that goes away ends the client as it ends a query of its own.
"$metawarp" query --server s.sock db "$r1" -o - -q --device cpu -t 2 | head -n 1 >/dev/null
status=${PIPESTATUS[0]}
[ "$status" -eq 141 ] || fail "a query into a closed pipe ended $status, not 141 (SIGPIPE)"
pass "a closed stdout ends the client with SIGPIPE"

# A database rebuilt in place is loaded again, not served from memory. (Half
# the genomes: other windows alone no longer change the calls of content-
# defined sampling, which -w 64 was here for.)
"$metawarp" build db "$data"/genomes/genome_00000[1-9].fna --taxonomy "$data/taxonomy" \
  --seqid2taxid "$data/seqid2taxid.map" -q -t 2 || fail "rebuilding the database"
"$metawarp" query --server s.sock db "$r1" "$r2" -o rebuilt.server.tsv --device cpu -t 2 2>rebuilt.stderr ||
  fail "the query after the rebuild failed"
grep -q "held by the server" rebuilt.stderr && fail "a rebuilt database was served from memory"
"$metawarp" query db "$r1" "$r2" -o rebuilt.alone.tsv --device cpu -t 2 -q
cmp -s rebuilt.server.tsv rebuilt.alone.tsv || fail "the rebuilt database's outputs differ"
cmp -s rebuilt.server.tsv pairs.server.stdout && fail "the rebuilt database gave the old outputs"
pass "a rebuilt database is loaded again"

# A client interrupted mid-query: its query ends, its outputs are removed,
# and the server answers the next one.
for _ in $(seq 60); do cat "$r1"; done >many_R1.fq
for _ in $(seq 60); do cat "$r2"; done >many_R2.fq
"$metawarp" query --server s.sock db many_R1.fq many_R2.fq -o many.tsv -q --device cpu -t 2 \
  --batch-size 64 &
client=$!
for _ in $(seq 600); do
  compgen -G 'many.tsv.tmp-*' >/dev/null && break
  sleep 0.01
done
kill -INT "$client"
wait "$client"
for _ in $(seq 100); do
  grep -q "went away" serve.log && break
  sleep 0.1
done
grep -q "went away" serve.log || fail "the server did not see its client go: $(cat serve.log)"
[ ! -e many.tsv ] || fail "a cancelled query left its output"
no_temporaries .
same_as_alone after_cancel "$r1" "$r2"
kill -0 "$server_pid" || fail "the server ended with its client"

# A server holding the database in parts (the streamed engine): a query that
# asks for the same parts is served from memory, its outputs those of the
# whole database's query of its own; one that asks for another plan (or
# none) is loaded again.
stop_server
start_server s.sock --partitions 3
for mode in server alone; do
  server=()
  [ $mode = server ] && server=(--server s.sock --partitions 3)
  "$metawarp" query "${server[@]}" db "$r1" "$r2" --device cpu -t 2 -o "parts.$mode.tsv" \
    --kraken-output "parts.$mode.kraken" --report "parts.$mode.report" 2>"parts.$mode.stderr" ||
    fail "the query in parts ($mode) failed: $(cat "parts.$mode.stderr")"
done
grep -q "in parts .*held by the server" parts.server.stderr ||
  fail "the database in parts was not served from memory: $(cat parts.server.stderr)"
for kind in tsv kraken report; do
  cmp -s "parts.server.$kind" "parts.alone.$kind" || fail "in parts: the server's $kind differs"
done
"$metawarp" query --server s.sock db "$r1" "$r2" --device cpu -t 2 -o parts.whole.tsv 2>parts.whole.stderr ||
  fail "the whole database after parts failed: $(cat parts.whole.stderr)"
grep -q "held by the server" parts.whole.stderr && fail "parts served for a whole-database query"
cmp -s parts.whole.tsv parts.alone.tsv || fail "the whole database after parts: outputs differ"
pass "a server holds a database in parts, and loads it whole when asked"

# Stopped, the server removes its socket; one killed leaves a socket the
# next server replaces.
stop_server
[ ! -e s.sock ] || fail "a stopped server left its socket"
start_server s.sock
kill -KILL "$server_pid"
wait "$server_pid" 2>/dev/null
server_pid=
[ -S s.sock ] || fail "a killed server's socket is gone (the check below needs it)"
start_server s.sock
same_as_alone restarted "$r1" "$r2"
pass "a stale socket is replaced"
echo "all serve checks passed"
