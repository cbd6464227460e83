# query --confidence, the evidence column (--kraken-output column 5) and
# --report-minimizer-data on the test data: bad values refused before any
# work, 0 changes nothing, a higher F never classifies more reads, results
# independent of threads and parts, and the report's extra columns sane.
source "$(dirname "$0")/cli_test_lib.sh"

build_test_database db.mwdb
r1=$data/reads_R1.fq
r2=$data/reads_R2.fq

for bad in 1.5 -0.1 nan; do
  expect_error "--confidence" "$metawarp" query db.mwdb "$r1" --confidence="$bad" -o bad.tsv -q
  [ -e bad.tsv ] && fail "a refused query wrote its output"
done
expect_error "give --report" "$metawarp" query db.mwdb "$r1" --report-minimizer-data -q

expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o plain.tsv --kraken-output plain.kraken \
  --report plain.report
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o zero.tsv --kraken-output zero.kraken \
  --report zero.report --confidence 0
for f in tsv kraken report; do same_bytes plain.$f zero.$f; done
pass "--confidence 0 changes nothing"

# Column 5: mate 1's runs, " |:| ", mate 2's; every run taxid:count.
awk -F'\t' '{ n = split($5, half, / \|:\| /); if (n != 2) exit 1
              m = split($5, runs, / /)
              for (i = 1; i <= m; i++) if (runs[i] != "|:|" && runs[i] !~ /^[0-9]+:[0-9]+$/) exit 1 }' \
  plain.kraken || fail "column 5 is not runs of taxid:count with ' |:| ' between the mates"
pass "column 5: runs per mate"

previous=$(grep -c '^C' plain.kraken)
for f in 0.2 0.5 0.9 1; do
  expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o "c$f.tsv" --kraken-output "c$f.kraken" \
    --confidence "$f" -t 1
  expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o "p$f.tsv" --kraken-output "p$f.kraken" \
    --confidence "$f" -t 3 --partitions 2 --batch-size 97
  same_bytes "c$f.tsv" "p$f.tsv"
  same_bytes "c$f.kraken" "p$f.kraken"
  now=$(grep -c '^C' "c$f.kraken")
  [ "$now" -le "$previous" ] || fail "--confidence $f classified $now reads, more than $previous"
  previous=$now
done
pass "higher --confidence never classifies more; threads and parts do not change a byte"

expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' --report mini.report \
  --report-minimizer-data
cut -f1-3,6- mini.report | cmp -s - plain.report ||
  fail "without columns 4 and 5 the report differs from the plain one"
# Kraken2's columns: the clade's minimizers (features) in the reads, and the
# distinct ones among them; so never more distinct than in all, and no clade
# holds more than the root's, which holds every feature with a taxon.
awk -F'\t' 'NF != 8 || $4 < $5 { exit 1 }' mini.report ||
  fail "minimizer data: 8 columns, the distinct features of a clade at most all of its features"
awk -F'\t' '$6 == "R" { all = $4; distinct = $5 }
            $6 != "R" && $6 != "U" && ($4 > all || $5 > distinct) { exit 1 }' mini.report ||
  fail "minimizer data: a clade with more features than the root's"
awk -F'\t' '$6 == "R" && $4 > 0 { seen = 1 } END { exit !seen }' mini.report ||
  fail "no features seen"
grep -q $'\t0\t0\tU\t0\tunclassified$' mini.report || fail "the unclassified line: not 0 0"
expect_success "$metawarp" query db.mwdb "$r1" "$r2" -q -o '' --report parts.report \
  --report-minimizer-data --partitions 3 -t 2
same_bytes mini.report parts.report
pass "--report-minimizer-data: Kraken2's columns, the same with the database in parts"
echo "all confidence checks passed"
