# What gets installed beside the binary says what the binary does: every
# option `metawarp <command> --help` lists is in the bash completion's list
# for that command (and the completion lists no option --help does not), and
# in the command's man page; the man pages and the completion parse.
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/cli/cli_test_lib.sh"

completion=$root/completions/metawarp.bash
bash -n "$completion" || fail "completions/metawarp.bash does not parse"

# help_options <command>: the options of `metawarp <command> --help`, one a line.
help_options() {
  "$metawarp" "$1" --help | grep -E '^ +-' | sed -E 's/^ +//; s/ .*//' | tr ',' '\n' |
    grep -E '^--?[A-Za-z]' | sort -u
}

# completion_options <command>: the completion's list for the command.
completion_options() {
  (
    source "$completion"
    COMP_WORDS=(metawarp "$1" -)
    COMP_CWORD=2
    _metawarp
    printf '%s\n' "${COMPREPLY[@]}"
  ) | sort -u
}

for command in build query info profile-db serve kraken2 kraken2-build; do
  help_options "$command" >help.txt
  [ -s help.txt ] || fail "$command --help lists no options"
  completion_options "$command" >completion.txt
  missing=$(comm -23 help.txt completion.txt | tr '\n' ' ')
  [ -z "$missing" ] || fail "the completion of $command lacks: $missing"
  extra=$(comm -13 help.txt completion.txt | tr '\n' ' ')
  [ -z "$extra" ] || fail "the completion of $command offers what --help does not list: $extra"
  page=$root/docs/man/metawarp-${command%-build}.1  # kraken2-build: kraken2's page
  while IFS= read -r option; do
    grep -qF -- "${option//-/\\-}" "$page" || fail "$page does not describe $option"
  done <help.txt
  pass "$command: $(wc -l <help.txt) options in --help, the completion and the man page"
done
[ "$(completion_options classify)" = "$(completion_options query)" ] ||
  fail "classify does not complete as query"
# Through the links: `kraken2 -<TAB>` completes as `metawarp kraken2 -<TAB>`.
for link in kraken2 kraken2-build; do
  through_link=$(
    source "$completion"
    COMP_WORDS=("/opt/bin/$link" -)
    COMP_CWORD=1
    _metawarp
    printf '%s\n' "${COMPREPLY[@]}" | sort -u
  )
  [ "$through_link" = "$(completion_options $link)" ] ||
    fail "$link (a link) does not complete as metawarp $link"
done

if command -v man >/dev/null; then
  for page in "$root"/docs/man/*.1; do
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    [ -z "$warnings" ] || fail "$page: $warnings"
  done
  pass "the man pages format without warnings"
fi
echo "all installed-docs checks passed"
