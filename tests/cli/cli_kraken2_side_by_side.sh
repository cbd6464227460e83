# metawarp's Kraken 2 command lines beside Kraken 2 itself (2.1.2, Debian's
# kraken2 package) on the test data: the same command lines, run by both,
# give files of the same layout: per-read lines, report, mpa report, the
# reads files and their header tags, the stderr lines, --version's first
# line and the status of a usage error. The calls are each program's own, so
# the layouts are compared, and the taxa the reports name. Skipped where
# Kraken 2 is not installed: CI does not need it.
source "$(dirname "$0")/cli_test_lib.sh"

real_kraken2=$(command -v kraken2 || true)
real_build=$(command -v kraken2-build || true)
if [ -z "$real_kraken2" ] || [ -z "$real_build" ] ||
  ! "$real_kraken2" --version 2>/dev/null | grep -q '^Kraken version 2\.'; then
  echo "Kraken 2 is not installed (kraken2 and kraken2-build in PATH): nothing to compare with"
  exit 77
fi
mkdir -p mw && ln -s "$metawarp" mw/kraken2 && ln -s "$metawarp" mw/kraken2-build
r1=$data/reads_R1.fq
r2=$data/reads_R2.fq

# One Kraken 2 database folder for both: the genomes with kraken:taxid
# headers added by Kraken 2's --add-to-library, its taxonomy; each builds its
# own database in it.
mkdir -p kdb/taxonomy tagged
cp "$data"/taxonomy/*.dmp kdb/taxonomy/
for f in "$data"/genomes/*.fna; do
  awk 'NR == FNR { taxid[$1] = $2; next }
       /^>/ { id = substr($1, 2); $1 = ">" id "|kraken:taxid|" taxid[id] } { print }' \
    "$data/seqid2taxid.map" "$f" >"tagged/$(basename "$f")"
  "$real_build" --add-to-library "tagged/$(basename "$f")" --db kdb --no-masking >/dev/null 2>&1 ||
    fail "Kraken 2's --add-to-library $f"
done
"$real_build" --build --db kdb --threads 2 >build.log 2>&1 ||
  fail "Kraken 2's build: $(tail -3 build.log)"
mw/kraken2-build --build --db kdb --threads 2 >/dev/null 2>&1 ||
  fail "metawarp's kraken2-build on Kraken 2's folder"
pass "one folder, both databases: Kraken 2's --add-to-library and --build, metawarp's --build"

# both <args...>: the command line run by Kraken 2 in k/ and by metawarp in
# m/, each's stdout, stderr and status there.
both() {
  rm -rf k m && mkdir k m
  (cd k && "$real_kraken2" "$@" >stdout 2>stderr; echo $? >status)
  (cd m && ../mw/kraken2 "$@" >stdout 2>stderr; echo $? >status)
}

# per_read_shape <file>: "read id, column 4, '|:|' tokens" per line; the
# call's consistency and column 5's tokens checked (Kraken 2 ends a line whose
# last run is ambiguous, "A:n", with a space: an empty last token).
per_read_shape() {
  awk -F'\t' '
    NF != 5 || $1 !~ /^[CU]$/ || ($1 == "U") != ($3 == 0) { print "bad line " NR; exit 1 }
    { n = split($5, tokens, / /); borders = 0
      for (i = 1; i <= n; i++)
        if (tokens[i] == "|:|") borders++
        else if (tokens[i] !~ /^([0-9]+|A):[0-9]+$/ && !(i == n && tokens[i] == "")) {
          print "bad token " tokens[i]; exit 1 }
      print $2, $4, borders }' "$1"
}

# report_taxa <report>: "taxid<TAB>depth<TAB>name" per taxon line (not
# unclassified), sorted for join.
report_taxa() {
  awk -F'\t' -v OFS='\t' '$(NF - 1) != 0 {
    match($NF, /^ */); print $(NF - 1), RLENGTH / 2, substr($NF, RLENGTH + 1) }' "$1" |
    LC_ALL=C sort
}

# The manual's paired example with every output.
both --db "$PWD/kdb" --paired --classified-out 'cseqs#.fq' --unclassified-out 'useqs#.fq' \
  --report rep.txt "$r1" "$r2"
for d in k m; do [ "$(cat $d/status)" = 0 ] ||
  fail "$d: status $(cat $d/status): $(cat $d/stderr)"; done
cmp -s <(per_read_shape k/stdout) <(per_read_shape m/stdout) ||
  fail "per-read lines: not the same reads, lengths and mate borders as Kraken 2's"
for d in k m; do
  sed -n 1p $d/stderr | grep -qx 'Loading database information... done.' || fail "$d: stderr line 1"
  sed -n 2p $d/stderr | grep -qE '^[0-9]+ sequences \([0-9.]+ Mbp\) processed in [0-9.]+s '\
'\([0-9.]+ Kseq/m, [0-9.]+ Mbp/m\)\.$' ||
    fail "$d: stderr line 2: $(sed -n 2p $d/stderr)"
  sed -n 3p $d/stderr |
    grep -qE "^  $(grep -c '^C' $d/stdout) sequences classified \([0-9.]+%\)$" ||
    fail "$d: stderr line 3"
  sed -n 4p $d/stderr |
    grep -qE "^  $(grep -c '^U' $d/stdout) sequences unclassified \([0-9.]+%\)$" ||
    fail "$d: stderr line 4"
  for m in 1 2; do
    awk 'NR % 4 == 1 && !/^@[^ ]+ kraken:taxid\|[0-9]+$/ { exit 1 }' $d/cseqs_$m.fq ||
      fail "$d/cseqs_$m.fq: a header not '@id kraken:taxid|N'"
    [ "$(($(wc -l <$d/cseqs_$m.fq) / 4))" -eq "$(grep -c '^C' $d/stdout)" ] ||
      fail "$d/cseqs_$m.fq: not the classified reads"
    [ "$(($(wc -l <$d/useqs_$m.fq) / 4))" -eq "$(grep -c '^U' $d/stdout)" ] ||
      fail "$d/useqs_$m.fq: not the unclassified reads"
  done
  awk -F'\t' 'NF != 6 { exit 1 }' $d/rep.txt || fail "$d/rep.txt: not 6 columns"
done
LC_ALL=C join -t $'\t' <(report_taxa k/rep.txt) <(report_taxa m/rep.txt) >common.txt
[ "$(wc -l <common.txt)" -gt 10 ] || fail "the reports name few taxa in common"
awk -F'\t' '$2 != $4 || $3 != $5 { print; exit 1 }' common.txt ||
  fail "the reports give a taxon another depth or name"
# Rank codes where Kraken 2's are there (Debian's 2.1.2 leaves some empty).
LC_ALL=C join <(awk -F'\t' '$4 != "" { print $5, $4 }' k/rep.txt | LC_ALL=C sort) \
  <(awk -F'\t' '{ print $5, $4 }' m/rep.txt | LC_ALL=C sort) | awk '$2 != $3 { print; exit 1 }' ||
  fail "the reports' rank codes differ"
pass "--paired --classified-out --unclassified-out --report: the layouts and taxa of Kraken 2's"

both --db "$PWD/kdb" --use-names --output names.txt "$r1"
for d in k m; do
  awk -F'\t' '$3 !~ /^.+ \(taxid [0-9]+\)$/ { exit 1 }' $d/names.txt ||
    fail "$d: --use-names column 3"
  [ ! -s $d/stdout ] || fail "$d: --output FILE wrote to stdout"
done
cmp -s <(per_read_shape k/names.txt) <(per_read_shape m/names.txt) ||
  fail "--use-names: the per-read layouts differ"
both --db "$PWD/kdb" --report mpa.txt --use-mpa-style --output - "$r1"
for d in k m; do
  head -n 1 $d/mpa.txt | grep -qE $'^d__Bacteria\t[0-9]+$' || fail "$d: mpa first line"
  awk -F'\t' 'NF != 2 || $1 !~ /^d__[^|]+(\|[kpcofgs]__[^|]+)*$/ { exit 1 }' $d/mpa.txt ||
    fail "$d: mpa lines"
  [ ! -s $d/stdout ] || fail "$d: --output - wrote per-read lines"
done
cmp -s <(cut -f1 k/mpa.txt | sort) <(cut -f1 m/mpa.txt | sort) ||
  echo "note: the mpa reports name different taxa (the calls differ)"
both --db "$PWD/kdb" --report mini.txt --report-minimizer-data --output - "$r1"
for d in k m; do
  awk -F'\t' 'NF != 8 || $4 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+$/ { exit 1 }' $d/mini.txt ||
    fail "$d: minimizer data"
  head -n 1 $d/mini.txt | grep -qE $'^ *[0-9.]+\t[0-9]+\t[0-9]+\t0\t0\tU\t0\tunclassified$' ||
    fail "$d: minimizer data's U line"
done
pass "--use-names, --use-mpa-style, --report-minimizer-data: the layouts of Kraken 2's"

both --version
for d in k m; do head -n 1 $d/stdout | grep -q '^Kraken version ' || fail "$d: --version"; done
both --db "$PWD/kdb"
[ "$(cat k/status)" = 64 ] && [ "$(cat m/status)" = 64 ] ||
  fail "no reads: statuses $(cat k/status), $(cat m/status)"
pass "--version's first line, and no reads given: 64 from both"
echo "all side-by-side checks passed"
