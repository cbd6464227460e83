# Symbolic links planted by another user (issue 25, case 2): a link in a
# sticky world-writable folder (like /tmp) whose owner is neither the caller
# nor the folder's owner is refused for every output, before any work and
# whatever fs.protected_symlinks says, so root's output never replaces (or
# creates) a file where another user pointed it. Links the caller may follow
# still lead to their target, which the output replaces (the link stays).
source "$(dirname "$0")/cli_test_lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "skip: needs root to add a throwaway second user"; exit 77; }
command -v useradd >/dev/null && command -v userdel >/dev/null && command -v setpriv >/dev/null ||
  { echo "skip: useradd, userdel or setpriv is missing"; exit 77; }
user=mwlinks$$
useradd --no-create-home --user-group --shell /usr/sbin/nologin "$user" 2>/dev/null ||
  { echo "skip: useradd $user failed"; exit 77; }
# A sticky world-writable folder the other user can reach (the build tree may not be).
sticky=$(mktemp -d /tmp/metawarp_links.XXXXXX)
owned=$(mktemp -d /tmp/metawarp_links_owned.XXXXXX)
trap 'userdel "$user" 2>/dev/null; rm -rf "$sticky" "$owned"' EXIT
chmod 1777 "$sticky" "$owned"
chown "$user:$user" "$owned"
as_user() { setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" --clear-groups "$@"; }

build_test_database db
ref="$data/genomes/genome_000001.fna"
reads="$data/reads_R1.fq"
echo "victim" >victim.txt
as_user ln -s "$work/victim.txt" "$sticky/evil_out.tsv" || fail "the other user could not plant the link"

victim_intact() {
  [ "$(cat victim.txt)" = "victim" ] || fail "$1 replaced the link's target: $(head -c 100 victim.txt)"
  [ -L "$sticky/evil_out.tsv" ] || fail "$1 replaced the planted link"
  no_temporaries "$sticky"
  no_temporaries .
}

for option in -o --report --kraken-output --abundance --classified-out --unclassified-out; do
  expect_error "symbolic link" "$metawarp" query db "$reads" -q "$option" "$sticky/evil_out.tsv"
  victim_intact "query $option"
done
expect_error "symbolic link" "$metawarp" build "$sticky/evil_out.tsv" "$ref" -q --no-taxonomy
victim_intact "build"
expect_error "symbolic link" "$metawarp" build "$sticky/evil_out.tsv" "$ref" -q --no-taxonomy \
  --partitions 3
victim_intact "build --partitions 3"
# Per-sample outputs: the sample's output path is the planted link.
as_user ln -s "$work/victim.txt" "$sticky/s1.tsv"
expect_error "symbolic link" "$metawarp" query db --sample s1 "$reads" --output-dir "$sticky" -q
victim_intact "a per-sample output"
pass "another user's link to an existing file: refused for every output"

# A dangling link: following it would create a file where the other user chose.
as_user ln -s "$work/created.tsv" "$sticky/dangling.tsv"
expect_error "symbolic link" "$metawarp" query db "$reads" -q -o "$sticky/dangling.tsv"
[ ! -e created.tsv ] || fail "a file was created where the planted dangling link points"
# A link as a folder on the way: the output would land in root's folder.
mkdir private
as_user ln -s "$work/private" "$sticky/folder"
expect_error "symbolic link" "$metawarp" query db "$reads" -q -o "$sticky/folder/out.tsv"
[ -z "$(ls -A private)" ] || fail "a file was written through the planted folder link: $(ls private)"
pass "dangling links and links to folders planted by another user: refused"

# Links the caller may follow. Its own link in the sticky folder:
echo "old" >mine.tsv
ln -s "$work/mine.tsv" "$sticky/own.tsv"
expect_success "$metawarp" query db "$reads" -q -o "$sticky/own.tsv"
[ -L "$sticky/own.tsv" ] && [ "$(grep -vc '^#' mine.tsv)" -eq 2000 ] ||
  fail "the caller's own link did not lead to its target"
# A link owned by the sticky folder's owner (the kernel follows those too):
echo "old" >theirs.tsv
as_user ln -s "$work/theirs.tsv" "$owned/link.tsv"
expect_success "$metawarp" query db "$reads" -q -o "$owned/link.tsv"
[ -L "$owned/link.tsv" ] && [ "$(grep -vc '^#' theirs.tsv)" -eq 2000 ] ||
  fail "the folder owner's link did not lead to its target"
no_temporaries "$sticky"
no_temporaries .
pass "links the caller may follow: the output replaced their target, the links stay"
echo "all output-link checks passed"
