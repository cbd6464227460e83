# A Kraken2 user's command lines: --paired, --classified-out/--unclassified-out
# (Kraken2's '#' for mates; every read once, in exactly one of the two files,
# byte-identical to its input record, in input order; single, paired,
# interleaved, FASTA, gzip, samples), --use-names, --use-mpa-style,
# --report-zero-counts, the options refused with what to use instead, what
# report readers expect of the report, and a build from a GTDB taxonomy TSV.
source "$(dirname "$0")/cli_test_lib.sh"

build_test_database db.mwdb
r1=$data/reads_R1.fq
r2=$data/reads_R2.fq

# expected_split <kraken output> <reads file> <C|U> <record lines (4: FASTQ)>
# <mate (0: every record, 1/2: odd/even records of interleaved pairs)>:
# the records of the reads file whose read the Kraken2 output calls C (or U),
# in input order, as their bytes.
expected_split() {
  awk -v want="$3" -v n="$4" -v mate="$5" '
    NR == FNR { call[FNR] = $1; next }
    { record = int((FNR - 1) / n) + 1
      read = mate ? int((record + 1) / 2) : record
      if ((mate == 0 || (record % 2) == (mate % 2)) && call[read] == want) print }
  ' "$1" "$2"
}

# check_split <kraken output> <classified> <unclassified> <reads> <lines> <mate>
check_split() {
  expected_split "$1" "$4" C "$5" "$6" >expected_c
  expected_split "$1" "$4" U "$5" "$6" >expected_u
  [ -s expected_c ] && [ -s expected_u ] || fail "test data: need classified and unclassified reads"
  cmp -s expected_c "$2" || fail "$2: not the classified records of $4, as read, in order"
  cmp -s expected_u "$3" || fail "$3: not the unclassified records of $4, as read, in order"
}

# Pairs from two files.
expect_success "$metawarp" query db.mwdb "$r1" "$r2" --paired -q -t 2 --batch-size 7 -o '' \
  --kraken-output pairs.kraken --classified-out 'c#.fq' --unclassified-out 'u#.fq'
check_split pairs.kraken c_1.fq u_1.fq "$r1" 4 0
check_split pairs.kraken c_2.fq u_2.fq "$r2" 4 0
pass "pairs: c_1/u_1 and c_2/u_2 hold every record once, as read, by the call"

# The same gzip-compressed when the name ends in .gz.
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -t 1 -o '' \
  --classified-out 'gz#.fq.gz' --unclassified-out 'ugz#.fq.gz'
for f in c_1 c_2 u_1 u_2; do
  g=${f/c_/gz_}; g=${g/u_/ugz_}
  gzip -t "$g.fq.gz" || fail "$g.fq.gz is not gzip"
  cmp -s <(gzip -dc "$g.fq.gz") "$f.fq" || fail "$g.fq.gz differs from $f.fq"
done
pass "names ending in .gz: the same records, gzip-compressed"

# Interleaved pairs: mate 1 and 2 of one file go to _1 and _2.
paste -d '\n' <(paste - - - - <"$r1") <(paste - - - - <"$r2") | tr '\t' '\n' >inter.fq
expect_success "$metawarp" query db.mwdb inter.fq --interleaved -q -t 2 -o '' \
  --kraken-output inter.kraken --classified-out 'ic#.fq' --unclassified-out 'iu#.fq'
cmp -s inter.kraken pairs.kraken || fail "interleaved calls differ from the two files'"
check_split inter.kraken ic_1.fq iu_1.fq inter.fq 4 1
check_split inter.kraken ic_2.fq iu_2.fq inter.fq 4 2
cmp -s ic_1.fq c_1.fq && cmp -s ic_2.fq c_2.fq || fail "interleaved classified mates differ"
pass "interleaved pairs: mates 1 and 2 to _1 and _2"

# Single-end FASTQ, and FASTA with wrapped sequences and Windows line ends.
expect_success "$metawarp" query db.mwdb "$r1" -q -o '' --kraken-output single.kraken \
  --classified-out sc.fq --unclassified-out su.fq
check_split single.kraken sc.fq su.fq "$r1" 4 0
awk 'NR % 4 == 1 { print ">" substr($0, 2) "\r" } NR % 4 == 2 {
       print substr($0, 1, 80) "\r"; print substr($0, 81) "\r" }' "$r1" >reads.fa
expect_success "$metawarp" query db.mwdb reads.fa -q -t 2 -o '' --kraken-output fa.kraken \
  --classified-out fc.fa --unclassified-out fu.fa
cmp -s <(cut -f1-3 fa.kraken) <(cut -f1-3 single.kraken) || fail "FASTA calls differ from FASTQ's"
check_split fa.kraken fc.fa fu.fa reads.fa 3 0
pass "single-end FASTQ and FASTA (wrapped, CRLF): records as read"

# Samples: the paths take {sample}, and each sample's files equal its own run's.
expect_success "$metawarp" query db.mwdb --sample A "$r1" "$r2" --sample B "$r1" "$r2" -q -o '' \
  --classified-out '{sample}_c#.fq' --unclassified-out '{sample}_u#.fq'
for s in A B; do
  for m in 1 2; do
    cmp -s "${s}_c_$m.fq" "c_$m.fq" && cmp -s "${s}_u_$m.fq" "u_$m.fq" ||
      fail "sample $s mates $m differ from the single run"
  done
done
pass "samples: {sample} and '#' together, each sample as its own run"

# Refusals, before any output is touched.
expect_error "use --interleaved" "$metawarp" query db.mwdb "$r1" --paired -o ''
expect_error "pairs need a '#'" "$metawarp" query db.mwdb "$r1" "$r2" -o '' --classified-out c.fq
expect_error "single-end" "$metawarp" query db.mwdb "$r1" -o '' --unclassified-out 'u#.fq'
expect_error "give --report" "$metawarp" query db.mwdb "$r1" -o '' --use-mpa-style
expect_error "--kraken-output" "$metawarp" query db.mwdb "$r1" -o '' --use-names
expect_error "same file" "$metawarp" query db.mwdb "$r1" "$r2" -o '' --classified-out 'x#.fq' \
  --unclassified-out 'x#.fq'
[ ! -e x_1.fq ] || fail "a refused query wrote x_1.fq"
expect_success "$metawarp" query db.mwdb "$r1" --gzip-compressed -q -o '' --quick --memory-mapping
expect_error "contradict" "$metawarp" query db.mwdb "$r1" --gzip-compressed --bzip2-compressed -o ''
expect_error "metawarp kraken2" "$metawarp" query db.mwdb "$r1" --db k2db -o ''

# A failed query leaves no reads output behind.
cp "$r1" bad.fq
printf '@bad\nACGT\n+\nII\n' >>bad.fq
"$metawarp" query db.mwdb bad.fq -q -o '' --classified-out bc.fq --unclassified-out bu.fq \
  2>/dev/null && fail "a bad record was accepted"
[ ! -e bc.fq ] && [ ! -e bu.fq ] || fail "a failed query left a reads output"
no_temporaries .
pass "a failed query leaves no classified/unclassified file"

# --use-names: "name (taxid N)" in the Kraken2 output, the rest unchanged.
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' --kraken-output names.kraken --use-names
cmp -s <(cut -f1,2,4- names.kraken) <(cut -f1,2,4- pairs.kraken) || fail "--use-names changed other columns"
grep -q $'^C\tr1\tSynthgenus[0-9].* (taxid [0-9]*)\t' names.kraken || fail "no 'name (taxid N)'"
grep -q $'^U\t[^\t]*\tunclassified (taxid 0)\t' names.kraken || fail "no 'unclassified (taxid 0)'"
pass "--use-names"

# Reports: what Kraken2 report readers expect, the zero-count and mpa variants.
head -n 40 "$r1" >few.fq  # reads of few species: the zero-count report lists more
expect_success "$metawarp" query db.mwdb few.fq -q -o '' --report few.report
expect_success "$metawarp" query db.mwdb few.fq -q -o '' --report zero.report --report-zero-counts
expect_success "$metawarp" query db.mwdb few.fq -q -o '' --report few.mpa --use-mpa-style
expect_success "$metawarp" query db.mwdb few.fq -q -o '' --report zero.mpa --use-mpa-style \
  --report-zero-counts
for r in few.report zero.report; do check_report_shape "$r"; done
taxa=$("$metawarp" info db.mwdb --taxa | tail -n +2 | wc -l)
[ "$(wc -l <zero.report)" -eq $((taxa + 1)) ] || fail "zero.report: not every taxon of the database"
[ "$(wc -l <few.report)" -lt "$(wc -l <zero.report)" ] || fail "few.report lists taxa without reads"
grep -q $'^  0.00\t0\t0\tU\t0\tunclassified$' zero.report || fail "zero.report: no unclassified line"
"$metawarp" info db.mwdb | grep -q "^report taxa  *$taxa with --report-zero-counts" ||
  fail "info does not say what --report-zero-counts lists"
# The mpa report, as Kraken2 2.1.2 writes it: one line per main-rank taxon of
# the report, its clade count; d__ for the domain, names with their spaces.
for m in few zero; do
  [ -s "$m.mpa" ] || fail "$m.mpa is empty"
  awk -F'\t' 'NF != 2 || $2 !~ /^[0-9]+$/ || $1 !~ /^d__[^|]+(\|[kpcofgs]__[^|]+)*$/ { exit 1 }' \
    "$m.mpa" || fail "$m.mpa is not shaped 'd__...|p__...<TAB>reads'"
done
grep -q $'|s__Synthgenus[0-9]* species[0-9]*\t' few.mpa ||
  fail "few.mpa: species names without their spaces"
cmp -s <(cut -f2 zero.mpa) <(awk -F'\t' '$4 ~ /^[DKPCOFGS]$/ { print $2 }' zero.report) ||
  fail "zero.mpa: counts differ from the report's main-rank lines"
pass "reports: readers' shape, --report-zero-counts (every taxon), --use-mpa-style"

# --minimum-hit-groups N (Kraken2's): a call stands when at least N of the
# read's features are in the database (column 5's runs of a taxid other than
# 0), else the read is unclassified; the evidence itself is unchanged.
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' --kraken-output plain.kraken
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' --kraken-output g1.kraken \
  --minimum-hit-groups 1
same_bytes plain.kraken g1.kraken
# in_database <kraken output>: "<call> <taxid> <features in the database>" per read.
in_database() {
  awk -F'\t' '{ n = split($5, runs, / /); sum = 0
                for (i = 1; i <= n; i++) {
                  split(runs[i], tc, /:/)
                  if (tc[1] != "0" && tc[1] != "|") sum += tc[2] }
                print $1, $3, sum }' "$1"
}
groups=$(in_database plain.kraken | awk '$1 == "C" { print $3 }' | sort -n |
  awk '{ v[NR] = $1 } END { print v[int(NR / 2)] }')  # the median
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' --kraken-output g.kraken \
  --minimum-hit-groups "$groups" -t 3 --batch-size 77
cmp -s <(cut -f2,4,5 g.kraken) <(cut -f2,4,5 plain.kraken) ||
  fail "--minimum-hit-groups changed the evidence"
in_database plain.kraken |
  awk -v n="$groups" '{ print ($3 >= n ? $1 " " $2 : "U 0") }' >expected_calls
cmp -s <(cut -f1,3 g.kraken | tr '\t' ' ') expected_calls ||
  fail "--minimum-hit-groups $groups: not exactly the calls with $groups features in the database"
[ "$(grep -c '^C' g.kraken)" -lt "$(grep -c '^C' plain.kraken)" ] && grep -q '^C' g.kraken ||
  fail "--minimum-hit-groups $groups (the median) kept all calls or none"
pass "--minimum-hit-groups $groups: the calls with fewer features in the database voided"

# --minimum-base-quality Q: a FASTQ base of quality below Q is masked, as an
# N there would be; qualities do not matter without it, nor FASTA reads with
# it; the reads outputs keep the records as read.
# Mates 1 with the second half of each quality '!' (Q0; the data has no
# other), and with the second half of each sequence N.
awk 'NR % 4 == 0 { q = substr($0, 76); gsub(/./, "!", q); print substr($0, 1, 75) q; next }
     { print }' "$r1" >lowq.fq
awk 'NR % 4 == 2 { s = substr($0, 76); gsub(/./, "N", s); print substr($0, 1, 75) s; next }
     { print }' "$r1" >nbases.fq
expect_success "$metawarp" query db.mwdb nbases.fq -q -o '' --kraken-output nbases.kraken
expect_success "$metawarp" query db.mwdb lowq.fq -q -o '' --kraken-output masked.kraken \
  --minimum-base-quality 1 --classified-out mc.fq --unclassified-out mu.fq -t 2 --batch-size 50
same_bytes nbases.kraken masked.kraken
cat mc.fq mu.fq | sort | cmp -s - <(sort lowq.fq) ||
  fail "--minimum-base-quality changed the reads written"
expect_success "$metawarp" query db.mwdb lowq.fq -q -o '' --kraken-output unmasked.kraken
expect_success "$metawarp" query db.mwdb "$r1" -q -o '' --kraken-output single.kraken
same_bytes single.kraken unmasked.kraken
cmp -s nbases.kraken single.kraken && fail "test data: masking half of each read changed nothing"
expect_success "$metawarp" query db.mwdb reads.fa -q -o '' --kraken-output fa_q.kraken \
  --minimum-base-quality 60
same_bytes fa.kraken fa_q.kraken
pass "--minimum-base-quality: bases below the quality masked as Ns, FASTA as it is"

# In `query`, --output is metawarp's TSV: given with Kraken2's options, a
# warning says so and names Kraken2's per-read option.
"$metawarp" query db.mwdb "$r1" "$r2" --paired --output out.tsv 2>warn.txt >/dev/null ||
  fail "query --paired --output failed: $(cat warn.txt)"
grep -q "^query: warning: --output writes metawarp's per-read TSV.*--paired.*--kraken-output FILE" \
  warn.txt || fail "no warning that --output is metawarp's TSV: $(cat warn.txt)"
no_warning() {
  "$@" 2>warn.txt >/dev/null || fail "$* failed: $(cat warn.txt)"
  grep -q "warning" warn.txt && fail "$*: a warning: $(cat warn.txt)"
}
no_warning "$metawarp" query db.mwdb "$r1" "$r2" --paired -o ''
no_warning "$metawarp" query db.mwdb "$r1" "$r2" --output out.tsv
no_warning "$metawarp" query db.mwdb "$r1" "$r2" --paired --output out.tsv -q
pass "query: --output with Kraken2's options warns that it is metawarp's TSV"

# GTDB: a database built from GTDB's taxonomy TSV and genome files named by accession.
gtdb=$data/gtdb
[ -s "$gtdb/taxonomy.tsv" ] || { echo "no GTDB fixture"; exit 77; }
# The fixture is what its generator writes (the same bytes on every run).
mkdir -p regen/taxonomy
cp -r "$data/genomes" "$data/genomes.tsv" regen/ && cp "$data/taxonomy/names.dmp" regen/taxonomy/
bash "$(dirname "$0")/../../tools/make_gtdb_fixture.sh" regen || fail "tools/make_gtdb_fixture.sh failed"
diff -r regen/gtdb "$gtdb" >/dev/null || fail "test_data/gtdb differs from tools/make_gtdb_fixture.sh's output"
pass "test_data/gtdb is tools/make_gtdb_fixture.sh's output"
expect_success "$metawarp" build gtdb.mwdb "$gtdb/genomes" --gtdb-taxonomy "$gtdb/taxonomy.tsv" -q -t 2
sort "$gtdb/taxonomy.tsv" >sorted.tsv
expect_success "$metawarp" build gtdb2.mwdb "$gtdb/genomes" --gtdb-taxonomy sorted.tsv -q -t 1
cmp -s gtdb.mwdb gtdb2.mwdb || fail "the GTDB database depends on the order of the TSV's lines"
"$metawarp" info gtdb.mwdb | grep -q "^targets .*(0 without taxon" || fail "GTDB: unmapped targets"
"$metawarp" info gtdb.mwdb | grep -q "^taxonomy source  *GTDB" || fail "info: no GTDB source"
"$metawarp" info db.mwdb | grep -q "^taxonomy source  *NCBI" || fail "info: no NCBI source"
expect_success "$metawarp" query gtdb.mwdb "$r1" "$r2" -q -o '' --report gtdb.report
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' --report ncbi.report
check_report_shape gtdb.report
# Genomes map to their species (GTDB has no strains): the species and genus
# clades are those of the NCBI-built database of the same genomes.
clades() { awk -F'\t' '$4 == "S" || $4 == "G" { sub(/^ */, "", $6); print $4, $6, $2 }' "$1" | sort; }
cmp -s <(clades gtdb.report) <(clades ncbi.report) || fail "GTDB species/genus clades differ"
awk -F'\t' '$4 != "U" && $4 != "R" && ($5 < 1000000000 || $5 > 2147483647) { exit 1 }' gtdb.report ||
  fail "GTDB taxids outside 1000000000..2^31-1"
expect_error "--gtdb-taxonomy" "$metawarp" build x.mwdb "$gtdb/genomes" --gtdb-taxonomy \
  "$gtdb/taxonomy.tsv" --taxonomy "$data/taxonomy"
printf 'GCF_1.1\td__Bacteria;c__X;p__Y\n' >bad.tsv
expect_error "bad.tsv:1:" "$metawarp" build x.mwdb "$gtdb/genomes" --gtdb-taxonomy bad.tsv
[ ! -e x.mwdb ] || fail "a refused build wrote x.mwdb"
pass "GTDB: built from the TSV, stable ids, species as the NCBI build's"
