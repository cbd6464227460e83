# --summary-json FILE (build and query): one JSON object with the inputs,
# counts, rates, database (path, targets, k, w, s), version and elapsed time;
# valid JSON (python3's parser where present); the counts are the run's; the
# file follows the output rule: checked before work (never an input), gone
# after a failed query, kept with the database after a failed build, '-' is
# stdout.
source "$(dirname "$0")/cli_test_lib.sh"

r1=$data/reads_R1.fq
r2=$data/reads_R2.fq
pairs=$(($(wc -l <"$r1") / 4))
targets=$(cat "$data"/genomes/* | grep -c '^>')
version=$("$metawarp" --version | awk '{print $2}')

# valid <file>: the file parses as JSON (python3's parser where present; else
# it is an object), and its values go to <file>.values, one "a.b.0.c=value"
# a line (strings unquoted), for field. Without python3 only top-level and
# "database" fields, read by their line, as the summary writes them.
if command -v python3 >/dev/null; then
  valid() {
    python3 -c '
import json, sys
def walk(prefix, value):
    if isinstance(value, dict):
        for key, item in value.items(): walk(prefix + [key], item)
    elif isinstance(value, list):
        for i, item in enumerate(value): walk(prefix + [str(i)], item)
    else:
        print(".".join(prefix) + "=" + (value if isinstance(value, str) else json.dumps(value)))
walk([], json.load(open(sys.argv[1])))' "$1" >"$1.values" || fail "$1 is not valid JSON: $(cat "$1")"
  }
else
  valid() {
    [ "$(head -c 1 "$1")" = "{" ] && [ "$(tail -n 1 "$1")" = "}" ] || fail "$1: not an object"
    sed -nE 's/^  "([a-z_]+)": ("?)([^",[{]*)\2,?$/\1=\3/p' "$1" >"$1.values"
    sed -nE 's/^  "database": \{//p' "$1" | grep -oE '"[a-z]+": [^,}]*' |
      sed -E 's/^"([a-z]+)": "?([^"]*)"?$/database.\1=\2/' >>"$1.values"
  }
fi
# field <file> <a.b.0.c>: the value, from the last `valid <file>`.
field() { grep -m 1 "^$2=" "$1.values" | cut -d= -f2-; }
expect_field() {  # <file> <field> <value>
  local got
  got=$(field "$1" "$2")
  [ "$got" = "$3" ] || fail "$1: $2 is '$got', not '$3': $(cat "$1")"
}

# build
expect_success "$metawarp" build db.mwdb "$data/genomes" --taxonomy "$data/taxonomy" \
  --seqid2taxid "$data/seqid2taxid.map" -t 2 -q --summary-json build.json
valid build.json
expect_field build.json command build
expect_field build.json metawarp_version "$version"
expect_field build.json database.path db.mwdb
expect_field build.json database.targets "$targets"
expect_field build.json database.k 20
expect_field build.json database.w 127
expect_field build.json database.s 64
expect_field build.json database.sampling minimizer:16
expect_field build.json targets_without_taxon 0
[ "$(field build.json files)" -eq 18 ] || fail "files: $(cat build.json)"
# Written with three decimals; python3's parser reads 0.020 back as 0.02.
field build.json elapsed_seconds | grep -Eq '^[0-9]+(\.[0-9]{1,3})?$' || fail "elapsed: $(cat build.json)"
grep -Eq '"elapsed_seconds": [0-9]+\.[0-9]{3}$' build.json || fail "elapsed: $(cat build.json)"
pass "build summary"

# query: the counts are those of the per-read output.
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -o reads.tsv -t 2 -q --summary-json q.json
valid q.json
expect_field q.json command query
expect_field q.json database.targets "$targets"
expect_field q.json paired true
expect_field q.json reads "$pairs"
classified=$(grep -c $'^[^#][^\t]*\tC\t' reads.tsv)
expect_field q.json classified "$classified"
expect_field q.json unclassified "$((pairs - classified))"
if command -v python3 >/dev/null; then
  expect_field q.json inputs.0 "$r1"
  expect_field q.json inputs.1 "$r2"
fi
# Where the time went, per stage (--verbose's thread-seconds), so one run
# tells what bounds the query.
for stage in cut_mates1 cut_mates2 parse classify format write; do
  grep -Eq "\"${stage}_seconds\": [0-9]+\.[0-9]{3}" q.json || fail "no stage $stage: $(cat q.json)"
done
if command -v python3 >/dev/null; then expect_field q.json stages.workers 2; fi
pass "query summary: $pairs pairs, $classified classified"

# Many samples: each sample, and the totals.
printf 'a\t%s\t%s\nb\t%s\n' "$r1" "$r2" "$r1" >sheet.tsv
expect_success "$metawarp" query db.mwdb --samples sheet.tsv -o '{sample}.tsv' -t 2 -q \
  --summary-json samples.json
valid samples.json
if command -v python3 >/dev/null; then
  expect_field samples.json samples.0.name a
  expect_field samples.json samples.0.reads "$pairs"
  expect_field samples.json samples.1.paired false
  expect_field samples.json samples.1.reads "$pairs"
  expect_field samples.json reads "$((2 * pairs))"
fi
expect_error "{sample}" "$metawarp" query db.mwdb --samples sheet.tsv -o '{sample}.tsv' \
  --summary-json '{sample}.json'
pass "samples summary"

# '-': standard output.
expect_success "$metawarp" query db.mwdb "$r1" -o single.tsv -t 2 -q --summary-json -
valid "$work/stdout"
expect_field "$work/stdout" paired false
expect_error "standard output" "$metawarp" query db.mwdb "$r1" -t 2 --summary-json -

# Never an input: refused before any work, the database untouched.
cp db.mwdb db.copy
expect_error "--summary-json" "$metawarp" query db.mwdb "$r1" -o x.tsv --summary-json db.mwdb
same_bytes db.mwdb db.copy
cp "$data/seqid2taxid.map" map.tsv
cp map.tsv map.copy
expect_error "--summary-json" "$metawarp" build db2.mwdb "$data/genomes" --taxonomy \
  "$data/taxonomy" --seqid2taxid map.tsv --summary-json map.tsv
same_bytes map.tsv map.copy
[ ! -e db2.mwdb ] || fail "a refused build wrote db2.mwdb"

# A failed query leaves no summary, an older one removed; a failed build
# keeps the one that was there, as it keeps the database.
printf '@bad\nACGT\n+\nII\n' >bad.fq
expect_error "bad.fq" "$metawarp" query db.mwdb bad.fq -o bad.tsv -t 2 --summary-json q.json
[ ! -e q.json ] || fail "a failed query left q.json"
cp build.json build.copy
: >empty.fa
expect_error "no sequence" "$metawarp" build db.mwdb empty.fa --taxonomy "$data/taxonomy" \
  --summary-json build.json
same_bytes build.json build.copy
same_bytes db.mwdb db.copy
no_temporaries .
pass "failed runs: the query's summary removed, the build's kept"
echo "all summary checks passed"
