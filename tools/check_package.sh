#!/usr/bin/env bash
# The Debian package as a user gets it: made by CPack from a build folder
# (cmake/package.cmake), installed with apt-get, its binary run from /usr/bin
# on test_data/ (a database built, the reads classified, the output checked),
# its man pages, completion and license in place, then the package removed.
# CI runs it as root on a fresh machine after tools/test.sh.
#   usage: tools/check_package.sh [BUILD_DIR] [--extract]
# --extract unpacks the package into a scratch folder (dpkg-deb -x) instead
# of installing it: the same checks on a machine where nothing may be
# installed.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
build=$(realpath "${1:-build}")
extract=false
[ "${2:-}" = --extract ] && extract=true
fail() {
  echo "check_package: FAIL: $*" >&2
  exit 1
}
work=$build/package-check
rm -rf "$work"
mkdir -p "$work"

(cd "$build" && cpack -G DEB -B "$work/cpack" >"$work/cpack.log" 2>&1) ||
  fail "cpack: $(tail -n 20 "$work/cpack.log")"
deb=$(ls "$work"/cpack/metawarp_*.deb)
version=$(dpkg-deb -f "$deb" Version)
depends=$(dpkg-deb -f "$deb" Depends)
echo "check_package: $(basename "$deb"), Depends: $depends"
for library in zlib1g libbz2 libzstd; do
  grep -q "$library" <<<"$depends" || fail "Depends lacks $library: $depends"
done
grep -q "^version: $version$" CITATION.cff || fail "CITATION.cff's version is not $version"

if $extract; then
  root=$work/root
  dpkg-deb -x "$deb" "$root"
else
  [ "$(id -u)" -eq 0 ] || fail "installing needs root (or give --extract)"
  root=
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$work/apt.log" 2>&1 ||
    fail "apt-get install: $(tail -n 20 "$work/apt.log")"
  trap 'DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq metawarp >/dev/null 2>&1' EXIT
fi
metawarp=$root/usr/bin/metawarp
[ -x "$metawarp" ] || fail "no $metawarp"
if ldd "$metawarp" | grep -q "not found"; then fail "$(ldd "$metawarp" | grep "not found")"; fi
[ "$("$metawarp" --version)" = "metawarp $version" ] ||
  fail "$metawarp --version says '$("$metawarp" --version)', the package $version"
for page in metawarp metawarp-build metawarp-query metawarp-info metawarp-serve metawarp-kraken2; do
  if [ -z "$root" ] && command -v man >/dev/null; then
    man -w "$page" >/dev/null || fail "man -w $page finds nothing"
  else
    test -f "$root/usr/share/man/man1/$page.1" || fail "no man page $page.1"
  fi
done
completion=$root/usr/share/bash-completion/completions/metawarp
bash -c "source '$completion' && complete -p metawarp" >/dev/null || fail "no completion at $completion"
test -f "$root/usr/share/doc/metawarp/LICENSE" || fail "no LICENSE in /usr/share/doc/metawarp"
echo "check_package: binary, man pages, completion and license installed"

# The demo with the installed binary.
(
  cd "$work"
  "$metawarp" build demo.mwdb "$repo/test_data/genomes" --taxonomy "$repo/test_data/taxonomy" \
    --seqid2taxid "$repo/test_data/seqid2taxid.map" -q
  "$metawarp" query demo.mwdb "$repo/test_data/reads_R1.fq" "$repo/test_data/reads_R2.fq" \
    -o reads.tsv --report report.txt -q --summary-json summary.json
) || fail "the installed binary's demo failed"
pairs=$(($(wc -l <test_data/reads_R1.fq) / 4))
[ "$(grep -vc '^#' "$work/reads.tsv")" -eq "$pairs" ] || fail "reads.tsv does not hold $pairs pairs"
classified=$(grep -c $'^[^#][^\t]*\tC\t' "$work/reads.tsv" || true)
[ $((classified * 10)) -ge $((pairs * 9)) ] || fail "only $classified of $pairs pairs classified"
grep -q '"classified": '"$classified"',' "$work/summary.json" || fail "summary: $(cat "$work/summary.json")"
echo "check_package: the installed metawarp classified $classified of $pairs read pairs of test_data"
if ! $extract; then
  trap - EXIT
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq metawarp >/dev/null 2>&1
  [ ! -e /usr/bin/metawarp ] || fail "apt-get remove left /usr/bin/metawarp"
  echo "check_package: removed"
fi
