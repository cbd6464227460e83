# Shared by the serve tests, sourced with the arguments of cli_test_lib.sh
# (which it sources): a server in the background, started by
# "${serve_command[@]}" (set by the test: the server and its database), with
# its stderr in serve.log.
source "$(dirname "${BASH_SOURCE[0]}")/cli_test_lib.sh"
set -m  # the server's own process group: a signal to it reaches it alone
server_pid=

stop_server() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  server_pid=
}

# start_server <socket> <serve options...>: in the background, until it says
# it listens (about 60 s at most).
start_server() {
  local socket=$1
  shift
  # The log of a server before goes first: the new one's redirection happens
  # in its own process, after this shell may have read the old "listening".
  rm -f serve.log
  "${serve_command[@]}" --socket "$socket" --device cpu -t 2 "$@" 2>serve.log &
  server_pid=$!
  for _ in $(seq 600); do
    grep -qs '^serve: listening on ' serve.log && return
    kill -0 "$server_pid" 2>/dev/null || fail "serve ended: $(cat serve.log)"
    sleep 0.1
  done
  fail "serve did not start listening: $(cat serve.log)"
}

# wait_for_line <file> <line>: until the file holds the line (about 30 s at
# most): a helper in the background saying it is ready.
wait_for_line() {
  for _ in $(seq 300); do
    grep -qxF -- "$2" "$1" && return
    sleep 0.1
  done
  fail "no line '$2' in $1: $(cat "$1")"
}
