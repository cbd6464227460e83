# Many samples in one run (--samples, --sample): each sample's outputs are
# byte-identical to a separate single-sample run; bad sheets are refused
# before any work, naming the sheet, line and problem; the first failing
# sample ends the run, keeping the samples completed before it.
source "$(dirname "$0")/cli_test_lib.sh"

build_test_database db.mwdb
r1=$data/reads_R1.fq
r2=$data/reads_R2.fq
mkdir reads
head -n 200 "$r1" >reads/part.fq
head -n 120 "$r2" >reads/part_R2_head.fq
printf '# name\tR1\tR2\npairs\t%s\t%s\n\nsingle\t%s\n' "$r1" "$r2" "$r1" >sheet.tsv
echo "part	part.fq" >reads/sheet2.tsv  # relative to the sheet's folder

# Separate runs, one per sample, with every output.
mkdir one
for s in pairs single part; do
  case $s in
    pairs) in=("$r1" "$r2") ;;
    single) in=("$r1") ;;
    part) in=(reads/part.fq) ;;
  esac
  expect_success "$metawarp" query db.mwdb "${in[@]}" -t 1 -q -o "one/$s.tsv" \
    --kraken-output "one/$s.kraken" --report "one/$s.report" --abundance "one/$s.abundance.tsv"
done

# The same in one run: a sheet and a --sample group, other thread and batch settings.
mkdir many
expect_success "$metawarp" query db.mwdb --samples sheet.tsv --sample part reads/part.fq \
  --output-dir many -t 2 --batch-size 17 --kraken-output '{sample}.kraken' \
  --report '{sample}.report' --abundance '{sample}.abundance.tsv'
for s in pairs single part; do
  for f in tsv kraken report abundance.tsv; do
    [ -s "many/$s.$f" ] || fail "many/$s.$f is missing or empty"
    cmp -s "many/$s.$f" "one/$s.$f" || fail "many/$s.$f differs from the single-sample run"
  done
done
cmp -s many/pairs.tsv many/single.tsv && fail "two different samples gave the same output"
pass "3 samples in one run: every output byte-identical to its single-sample run"
grep -q "database load .*(once)" stderr || fail "no summary of the run: $(cat stderr)"
[ "$(grep -c '^query: sample [0-9]/3 ' stderr)" -eq 3 ] || fail "not one summary per sample: $(cat stderr)"

# A sheet in another folder: its relative paths are relative to it.
expect_success "$metawarp" query db.mwdb --samples reads/sheet2.tsv -o '{sample}.rel.tsv' -q
cmp -s part.rel.tsv one/part.tsv || fail "the sheet-relative path was not read"

# The default per-read output with samples is {sample}.tsv in the output folder.
mkdir dflt
expect_success "$metawarp" query db.mwdb --sample s1 "$r1" --output-dir dflt -q
cmp -s dflt/s1.tsv one/single.tsv || fail "the default {sample}.tsv is not the per-read TSV"

# Refused before any work, naming the sheet, the line and the problem.
printf 'a\t%s\nb\n' "$r1" >no_r1.tsv
expect_error "sample sheet 'no_r1.tsv' line 2: no reads file column" \
  "$metawarp" query db.mwdb --samples no_r1.tsv
printf 'a\t%s\nA\t%s\n' "$r1" "$r1" >dup.tsv
expect_error "sample name 'A' (sample sheet 'dup.tsv' line 2) is already the name of sample 'a'" \
  "$metawarp" query db.mwdb --samples dup.tsv
printf 'x/y\t%s\n' "$r1" >unsafe.tsv
expect_error "line 1: sample name 'x/y' is not a safe file name" \
  "$metawarp" query db.mwdb --samples unsafe.tsv
printf 'a\tnone.fq\n' >missing.tsv
expect_error "line 1: R1 file 'none.fq' does not exist" "$metawarp" query db.mwdb --samples missing.tsv
expect_error "with samples every output path must contain {sample}" \
  "$metawarp" query db.mwdb --samples sheet.tsv --report all.report
expect_error "standard output cannot hold" "$metawarp" query db.mwdb --samples sheet.tsv -o -
expect_error "{sample} stands for a sample's name" "$metawarp" query db.mwdb "$r1" -o '{sample}.tsv'
expect_error "not both" "$metawarp" query db.mwdb "$r1" --samples sheet.tsv
expect_error "--output-dir places the outputs of samples" \
  "$metawarp" query db.mwdb "$r1" --output-dir many
expect_error "reads is required: a reads file (two for pairs), or samples" "$metawarp" query db.mwdb

# One sample's output would overwrite another sample's reads: refused, the reads unchanged.
cp reads/part.fq victim.tsv
cp victim.tsv victim.copy
expect_error "sample 'victim' --output" \
  "$metawarp" query db.mwdb --sample victim "$r1" --sample other victim.tsv
same_bytes victim.tsv victim.copy
[ ! -e other.tsv ] || fail "a refused run wrote an output"

# A failing sample: the one before it kept, its own outputs removed, the one after not run.
mkdir fail
head -n 20 "$r1" >bad.fq
printf '@broken\nACGT\n+\nII\n' >>bad.fq
echo "old" >fail/bad.tsv
echo "old" >fail/after.tsv
printf 'before\t%s\nbad\t%s\nafter\t%s\n' "$r1" "$PWD/bad.fq" "$r1" >fail.tsv
expect_error "sample 'bad' (2 of 3, sample sheet 'fail.tsv' line 2)" \
  "$metawarp" query db.mwdb --samples fail.tsv --output-dir fail
grep -q "the 1 sample before it ('before') completed, outputs kept; the 1 sample after it ('after') not run" stderr ||
  fail "the error does not say what was kept and what was not run: $(cat stderr)"
cmp -s fail/before.tsv one/single.tsv || fail "the completed sample's output was not kept"
[ ! -e fail/bad.tsv ] || fail "the failing sample's old output was left"
[ "$(cat fail/after.tsv)" = old ] || fail "a sample that did not run had its file changed"
no_temporaries .
echo "all sample checks passed"
