# Kraken 2's own command lines, verbatim, through links named kraken2 and
# kraken2-build (docs/cli-query.md, "For Kraken2 users"): kraken2-build
# --build on a Kraken 2 database folder, the examples of Kraken 2's manual and
# nf-core's kraken2 module; their outputs in Kraken 2's layout and equal to
# what `metawarp query` writes with the same meaning, Kraken 2's stderr lines,
# its environment and its exit statuses.
source "$(dirname "$0")/cli_test_lib.sh"

ln -s "$metawarp" kraken2
ln -s "$metawarp" kraken2-build
r1=$data/reads_R1.fq
r2=$data/reads_R2.fq

# A Kraken 2 database folder as kraken2-build --add-to-library leaves it:
# library/added/*.fna and a prelim_map; taxonomy/ with the NCBI dumps.
mkdir -p k2db/library/added k2db/taxonomy
for f in "$data"/genomes/*.fna; do cp "$f" "k2db/library/added/$(basename "$f" .fna)x.fna"; done
cp "$data"/taxonomy/*.dmp k2db/taxonomy/
awk '{ print "TAXID\t" $1 "\t" $2 }' "$data/seqid2taxid.map" >k2db/library/added/prelim_map_Xb1.txt
expect_success ./kraken2-build --build --db k2db --threads 2
[ -s k2db/metawarp.mwdb ] || fail "kraken2-build --build wrote no k2db/metawarp.mwdb"
no_temporaries k2db

# What `metawarp query` writes with Kraken 2's meanings (its default of 2 hit
# groups) on the database metawarp build makes of the same files.
build_test_database ref.mwdb
expect_success "$metawarp" query ref.mwdb "$r1" "$r2" -q -o '' --minimum-hit-groups 2 \
  --kraken-output ref.kraken --report ref.report --classified-out 'refc#.fq'
# The same database from the other ways Kraken 2 maps sequences: its
# seqid2taxid.map, or kraken:taxid|N in the headers alone.
mkdir -p mapped/library mapped/taxonomy tagged/library/sub tagged/taxonomy
cp "$data"/genomes/*.fna mapped/library/ && cp "$data"/taxonomy/*.dmp mapped/taxonomy/
cp "$data/seqid2taxid.map" mapped/
for f in "$data"/genomes/*.fna; do
  awk 'NR == FNR { taxid[$1] = $2; next }
       /^>/ { id = substr($1, 2); $1 = ">kraken:taxid|" taxid[id] "|" id } { print }' \
    "$data/seqid2taxid.map" "$f" >"tagged/library/sub/$(basename "$f")"
done
cp "$data"/taxonomy/*.dmp tagged/taxonomy/
for db in k2db mapped tagged; do
  KRAKEN2_THREAD_CT=2 ./kraken2-build --build --db "$db" >/dev/null 2>&1 ||
    fail "kraken2-build --build --db $db"
  ./kraken2 --db "$db" --paired "$r1" "$r2" >"$db.kraken" 2>/dev/null || fail "kraken2 --db $db"
  cmp -s <(cut -f1-4 "$db.kraken") <(cut -f1-4 ref.kraken) ||
    fail "$db: calls differ from metawarp build's"
done
same_bytes k2db.kraken ref.kraken
pass "kraken2-build --build: prelim_map, seqid2taxid.map, kraken:taxid headers: metawarp build's"

# check_per_read <file> <single|paired>: Kraken 2's per-read layout.
check_per_read() {
  awk -F'\t' -v paired="$2" '
    NF != 5 || $1 !~ /^[CU]$/ || $3 !~ /^[0-9]+$/ || ($1 == "U") != ($3 == 0) { exit 1 }
    paired == "paired" && $4 !~ /^[0-9]+\|[0-9]+$/ { exit 1 }
    paired == "single" && $4 !~ /^[0-9]+$/ { exit 1 }
    { n = split($5, tokens, / /); borders = 0
      for (i = 1; i <= n; i++)
        if (tokens[i] == "|:|") borders++
        else if (tokens[i] !~ /^[0-9]+:[0-9]+$/) exit 1
      if (borders != (paired == "paired")) exit 1 }' "$1" ||
    fail "$1: not Kraken 2's per-read layout ($2)"
}

# check_summary <stderr> <per-read output>: Kraken 2's lines, its counts.
check_summary() {
  local reads classified
  reads=$(wc -l <"$2")
  classified=$(grep -c '^C' "$2")
  head -n 1 "$1" | grep -qx 'Loading database information... done.' || fail "$1: no loading line"
  local bases='\([0-9]+\.[0-9]{2} Mbp\)' rates='\([0-9]+\.[0-9] Kseq/m, [0-9]+\.[0-9]{2} Mbp/m\)'
  sed -n 2p "$1" | grep -qE "^$reads sequences $bases processed in [0-9]+\.[0-9]{3}s $rates\.$" ||
    fail "$1: no 'N sequences (X Mbp) processed in Ys' line"
  sed -n 3p "$1" | grep -qE "^  $classified sequences classified \([0-9]+\.[0-9]{2}%\)$" ||
    fail "$1: no '  $classified sequences classified' line"
  sed -n 4p "$1" |
    grep -qE "^  $((reads - classified)) sequences unclassified \([0-9]+\.[0-9]{2}%\)$" ||
    fail "$1: no unclassified line"
  [ "$(wc -l <"$1")" -eq 4 ] || fail "$1: more than Kraken 2's lines: $(cat "$1")"
}

# The manual's examples (Kraken 2 manual, "Classification").
DBNAME=k2db
awk 'NR % 4 == 1 { print ">" substr($0, 2) } NR % 4 == 2 { print }' "$r1" >seqs.fa
cp "$r1" seqs_1.fq && cp "$r2" seqs_2.fq
./kraken2 --db $DBNAME seqs.fa >seqs.out 2>seqs.err ||
  fail "kraken2 --db \$DBNAME seqs.fa: $(cat seqs.err)"
check_per_read seqs.out single
check_summary seqs.err seqs.out
expect_success "$metawarp" query ref.mwdb seqs.fa -q -o '' --minimum-hit-groups 2 \
  --kraken-output seqs.ref
same_bytes seqs.out seqs.ref
pass "kraken2 --db \$DBNAME seqs.fa: Kraken 2's per-read lines on stdout, its summary on stderr"

./kraken2 --db $DBNAME --paired --classified-out cseqs#.fq seqs_1.fq seqs_2.fq \
  >pairs.out 2>pairs.err ||
  fail "kraken2 --paired --classified-out cseqs#.fq: $(cat pairs.err)"
check_per_read pairs.out paired
check_summary pairs.err pairs.out
same_bytes pairs.out ref.kraken
# Every classified pair, mates 1 and 2, its header tagged with its call.
for m in 1 2; do
  awk -F'\t' '$1 == "C" { print $2 " kraken:taxid|" $3 }' pairs.out >want_tags
  awk 'NR % 4 == 1 { sub(/^@/, ""); sub(/\/[12] /, " "); print }' "cseqs_$m.fq" >got_tags
  cmp -s want_tags got_tags ||
    fail "cseqs_$m.fq: headers not tagged ' kraken:taxid|N' with the calls"
  sed 's/ kraken:taxid|[0-9]*$//' "cseqs_$m.fq" | cmp -s - "refc_$m.fq" ||
    fail "cseqs_$m.fq: without the tags not the classified records as read"
done
pass "kraken2 --paired --classified-out cseqs#.fq: cseqs_1/_2.fq, headers tagged as Kraken 2's"

./kraken2 --db $DBNAME --paired --report k.report --output - seqs_1.fq seqs_2.fq \
  >stdout.txt 2>/dev/null ||
  fail "kraken2 --report --output -"
[ ! -s stdout.txt ] || fail "--output - wrote per-read lines"
check_report_shape k.report
same_bytes k.report ref.report
./kraken2 --db $DBNAME --paired --use-names seqs_1.fq seqs_2.fq >names.out 2>/dev/null ||
  fail "--use-names"
cmp -s <(cut -f1,2,4,5 names.out) <(cut -f1,2,4,5 pairs.out) ||
  fail "--use-names changed other columns"
grep -qE $'^C\t[^\t]+\tSynthgenus[0-9]+ [^\t]* \\(taxid [0-9]+\\)\t' names.out ||
  fail "--use-names: no 'name (taxid N)'"
./kraken2 --db $DBNAME --paired --report mpa.txt --use-mpa-style --output - seqs_1.fq seqs_2.fq \
  2>/dev/null ||
  fail "--use-mpa-style"
head -n 1 mpa.txt | grep -qE $'^d__Bacteria\t[0-9]+$' ||
  fail "mpa.txt: not Kraken 2's d__ first line"
./kraken2 --db $DBNAME --paired --report mini.report --report-minimizer-data --output - seqs_1.fq \
  seqs_2.fq 2>/dev/null || fail "--report-minimizer-data"
awk -F'\t' 'NF != 8 { exit 1 }' mini.report || fail "--report-minimizer-data: not 8 columns"
gzip -c seqs_1.fq >seqs_1.fq.gz && gzip -c seqs_2.fq >seqs_2.fq.gz
./kraken2 --db $DBNAME --paired --gzip-compressed seqs_1.fq.gz seqs_2.fq.gz >gz.out 2>/dev/null ||
  fail "--gzip-compressed"
same_bytes gz.out pairs.out
./kraken2 --db $DBNAME --paired --memory-mapping --quick seqs_1.fq seqs_2.fq >mm.out 2>/dev/null ||
  fail "--memory-mapping --quick"
same_bytes mm.out pairs.out
pass "the manual's --report, --output -, --use-names, --use-mpa-style, --gzip-compressed, ..."

# nf-core's kraken2 module (modules/nf-core/kraken2/kraken2/main.nf), its
# script block as Nextflow renders it, paired and single-end.
prefix=sample
gzip -c "$r1" >reads_1.fastq.gz && gzip -c "$r2" >reads_2.fastq.gz
./kraken2 \
    --db k2db \
    --threads 2 \
    --report ${prefix}.kraken2.report.txt \
    --gzip-compressed \
    --unclassified-out ${prefix}.unclassified#.fastq \
    --classified-out ${prefix}.classified#.fastq \
    --output ${prefix}.kraken2.classifiedreads.txt \
    --paired \
    reads_1.fastq.gz reads_2.fastq.gz 2>nfcore.err ||
      fail "nf-core's command line: $(cat nfcore.err)"
ls ${prefix}.classified_1.fastq ${prefix}.classified_2.fastq ${prefix}.unclassified_1.fastq \
  ${prefix}.unclassified_2.fastq >/dev/null || fail "nf-core: the classified/unclassified files"
same_bytes ${prefix}.kraken2.classifiedreads.txt pairs.out
same_bytes ${prefix}.kraken2.report.txt ref.report
check_summary nfcore.err pairs.out
./kraken2 \
    --db k2db \
    --threads 2 \
    --report single.kraken2.report.txt \
    --gzip-compressed \
    --output /dev/null \
    reads_1.fastq.gz 2>/dev/null || fail "nf-core's single-end command line"
check_report_shape single.kraken2.report.txt
version=$(./kraken2 --version 2>&1 | head -1 | sed "s/^.*Kraken version //; s/ .*//")
[ "$version" = "metawarp-$("$metawarp" --version | cut -d' ' -f2)" ] ||
  fail "nf-core's version command gives '$version'"
pass "nf-core's kraken2 module: its files, the report, the version '$version'"

# Kraken 2's environment: the database by KRAKEN2_DB_PATH and
# KRAKEN2_DEFAULT_DB, the threads by KRAKEN2_NUM_THREADS; --db a file.
mkdir -p elsewhere
(cd elsewhere && KRAKEN2_DB_PATH=/nonexistent:.. ../kraken2 --db k2db --paired "$r1" "$r2" \
  >../path.out 2>/dev/null) ||
  fail "KRAKEN2_DB_PATH"
same_bytes path.out pairs.out
KRAKEN2_DEFAULT_DB=k2db KRAKEN2_NUM_THREADS=3 ./kraken2 --paired "$r1" "$r2" \
  >default.out 2>/dev/null ||
  fail "KRAKEN2_DEFAULT_DB"
same_bytes default.out pairs.out
./kraken2 --db k2db/metawarp.mwdb --paired "$r1" "$r2" >file.out 2>/dev/null || fail "--db FILE"
same_bytes file.out pairs.out
pass "KRAKEN2_DB_PATH, KRAKEN2_DEFAULT_DB, KRAKEN2_NUM_THREADS, --db FILE"

# --minimum-base-quality and --minimum-hit-groups as `metawarp query` has them.
./kraken2 --db k2db --minimum-hit-groups 0 --minimum-base-quality 20 "$r1" >q.out 2>/dev/null ||
  fail "--minimum-base-quality"
expect_success "$metawarp" query ref.mwdb "$r1" -q -o '' --minimum-base-quality 20 \
  --kraken-output q.ref
same_bytes q.out q.ref
pass "--minimum-base-quality, --minimum-hit-groups"

# Exit statuses: Kraken 2's (sysexits.h) for what it refuses, one error line.
printf '@bad\nACGT\n+\nII\n' >bad.fq
head -c 1000 /dev/urandom >garbage.mwdb
mkdir -p kraken2only && touch kraken2only/hash.k2d kraken2only/opts.k2d kraken2only/taxo.k2d
expect_failure 64 "--no-such-option" ./kraken2 --db k2db --no-such-option "$r1"
expect_failure 64 "give the reads" ./kraken2 --db k2db
expect_failure 64 "--threads" ./kraken2 --db k2db --threads 0 "$r1"
expect_failure 64 "--confidence" ./kraken2 --db k2db --confidence 1.5 "$r1"
expect_failure 64 "KRAKEN2_NUM_THREADS" env KRAKEN2_NUM_THREADS=many ./kraken2 --db k2db "$r1"
expect_failure 64 "not found" ./kraken2 --db nowhere "$r1"
expect_failure 64 "a Kraken 2 database (hash.k2d)" ./kraken2 --db kraken2only "$r1"
expect_failure 64 "--paired takes two" ./kraken2 --db k2db --paired "$r1"
expect_failure 64 "without --paired" ./kraken2 --db k2db "$r1" "$r2"
expect_failure 64 "give --report" ./kraken2 --db k2db --use-mpa-style "$r1"
expect_failure 65 "bad.fq" ./kraken2 --db k2db bad.fq
expect_failure 71 "garbage.mwdb" ./kraken2 --db garbage.mwdb "$r1"
expect_failure 64 "give the task: --build" ./kraken2-build --db k2db
expect_failure 64 "--download-taxonomy is not available" \
  ./kraken2-build --download-taxonomy --db k2db
expect_failure 64 "--kmer-len is not available" ./kraken2-build --build --db k2db --kmer-len 31
expect_failure 64 "no taxonomy/ folder" ./kraken2-build --build --db elsewhere
expect_success ./kraken2-build --build --db k2db --no-masking --fast-build --load-factor 0.5
expect_success ./kraken2 --help
expect_success ./kraken2-build --help
pass "exit statuses: 64 for the command line, 65 for bad reads, 71 for an unreadable database"
echo "all kraken2 drop-in checks passed"
