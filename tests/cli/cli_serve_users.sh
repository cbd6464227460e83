# A resident server and the users of one host: a client gives its folder and
# streams only to a server run by its own user (checked before it sends
# anything), and a server runs a query only for a client who may read the
# database file now (its uid and groups judged as the kernel judges an open),
# whatever the server holds loaded. Needs root, to add a throwaway user and
# group; skipped (77) otherwise.
source "$(dirname "$0")/serve_test_lib.sh"
peer=$4

[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root to add a throwaway user"; exit 77; }
for tool in useradd userdel groupadd groupdel setpriv getent; do
  command -v "$tool" >/dev/null || { echo "skipped: no $tool to add a throwaway user"; exit 77; }
done
r1=$data/reads_R1.fq
build_test_database db
user=mwtest$$
group=mwtestg$$
shared=
fake_pid=
cleanup() {
  [ -n "$fake_pid" ] && kill -- -"$fake_pid" 2>/dev/null  # its process group (set -m)
  stop_server
  userdel "$user" 2>/dev/null
  groupdel "$group" 2>/dev/null
  [ -n "$shared" ] && rm -rf "$shared"
}
trap cleanup EXIT
useradd -M -s /usr/sbin/nologin "$user" 2>useradd.err ||
  { echo "skipped: useradd failed: $(cat useradd.err)"; exit 77; }
groupadd "$group" || fail "groupadd $group"
uid=$(id -u "$user")
gid=$(id -g "$user")
extra=$(getent group "$group" | cut -d: -f3)
as_user() { setpriv --reuid="$uid" --regid="$gid" --clear-groups "$@"; }
as_user_in_group() { setpriv --reuid="$uid" --regid="$gid" --groups="$extra" "$@"; }

# A folder every user reaches (the scratch folder may be in a private home),
# with the programs the user runs.
shared=$(mktemp -d /tmp/metawarp-serve-users.XXXXXX)
chmod 755 "$shared"
cp "$metawarp" "$peer" "$shared/"

# 1. Another user's server on a socket in a sticky world-writable folder
# (like /tmp): root's client refuses it, and it gets nothing: no request, no
# descriptor of root's stdin, stdout, stderr or folder.
mkdir -m 1777 "$shared/public"
sock=$shared/public/metawarp.sock
as_user "$shared/serve_peer" fake-server "$sock" "$shared/public/fake.report" >fake.out 2>&1 &
fake_pid=$!
wait_for_line fake.out listening
expect_error "the server at '$sock' is run by uid $uid" \
  "$metawarp" query --server "$sock" db - -o - <"$r1"
wait "$fake_pid"
fake_pid=
[ "$(cat "$shared/public/fake.report")" = nothing ] ||
  fail "the other user's server got: $(cat "$shared/public/fake.report")"
[ -s "$work/stdout" ] && fail "the other user's server wrote to root's stdout"
pass "another user's server gets nothing from root's client"

# 3. The user's own server (started in a group of its database's folder), a
# database root owns: each query is checked against the file as it is now,
# for the client's uid and groups, whatever the server holds loaded or may
# read itself.
mkdir "$shared/dbs" "$shared/reads" "$shared/home"
cp db "$shared/dbs/db"
cp "$r1" "$shared/reads/r1.fq"
chmod 644 "$shared/dbs/db" "$shared/reads/r1.fq"
chown "$user" "$shared/home"
cd "$shared/home" || fail "cd $shared/home"
serve_command=(setpriv --reuid="$uid" --regid="$gid" --groups="$extra" "$shared/metawarp" serve
  "$shared/dbs/db")
start_server s.sock
# query_as <as_user or as_user_in_group> <query options...>: the reads against the database.
query_as() {
  local runner=$1
  shift
  "$runner" "$shared/metawarp" query "$shared/dbs/db" "$shared/reads/r1.fq" -q --device cpu -t 2 "$@"
}
query_as as_user --server s.sock -o allowed.tsv || fail "the user's query through its server failed"
query_as as_user -o alone.tsv || fail "the user's query by itself failed"
cmp -s allowed.tsv alone.tsv || fail "the server's output differs"
pass "the user's own server answers the user"

# Another user's client (here root, with a program that sends what it likes):
# refused, with the reason.
"$peer" request s.sock 4 metawarp query "$shared/dbs/db" "$shared/reads/r1.fq" >reply.txt ||
  fail "serve_peer: $(cat reply.txt)"
grep -q "^refusal: this server serves only its own user (uid $uid)" reply.txt ||
  fail "root's request to the user's server: $(cat reply.txt)"
pass "the server refuses a client of another user: $(grep '^refusal' reply.txt)"

# Read permission taken away by the file's owner: refused by itself, and now
# through the server too.
chmod 600 "$shared/dbs/db"
expect_error "Permission denied" query_as as_user -o denied.tsv
expect_error "uid $uid may not read it: no read permission (mode 0600, owner uid 0" \
  query_as as_user --server s.sock -o denied.tsv
[ ! -e denied.tsv ] || fail "a refused query left an output"
chmod 644 "$shared/dbs/db"

# The folder open to its group only: the server (in the group) may search
# it, a client without the group may not. metawarp's client finds no file
# there by itself; a program that sends the request anyway is refused.
chgrp "$group" "$shared/dbs"
chmod 750 "$shared/dbs"
request=(request s.sock 4 metawarp query "$shared/dbs/db" "$shared/reads/r1.fq" -o denied.tsv
  -q --device cpu -t 2)
as_user "$shared/serve_peer" "${request[@]}" >reply.txt 2>error.txt ||
  fail "serve_peer: $(cat reply.txt error.txt)"
grep -q '^status 1$' reply.txt &&
  grep -qF "uid $uid may not read it: no search permission on the folder '$shared/dbs'" error.txt ||
  fail "a client without search permission on the folder: $(cat reply.txt error.txt)"
[ ! -e denied.tsv ] || fail "a refused query left an output"
pass "a client without search permission on the folder: $(cat error.txt)"
as_user_in_group "$shared/serve_peer" "${request[@]/denied/grouped}" >reply.txt 2>error.txt
grep -q '^status 0$' reply.txt || fail "a client in the folder's group: $(cat reply.txt error.txt)"
pass "a client in the folder's group is served"
chmod 755 "$shared/dbs"

# The file readable by its group: a member (a supplementary group) may read
# it, the user without the group may not, as the kernel judges.
chgrp "$group" "$shared/dbs/db"
chmod 640 "$shared/dbs/db"
expect_error "no read permission (mode 0640" query_as as_user --server s.sock -o denied.tsv
query_as as_user_in_group --server s.sock -o grouped.tsv ||
  fail "a query of a member of the database's group failed"
cmp -s grouped.tsv alone.tsv || fail "the group member's output differs"
kill -0 "$server_pid" || fail "the server ended"
pass "the server checks the client's read permission on the database at each query"
echo "all serve user checks passed"
