#!/usr/bin/env bash
# Writes test_data/gtdb/, a small GTDB-shaped reference set, from the
# synthetic set of test_data/ (genomes.tsv, genomes/, taxonomy/names.dmp):
#   gtdb/taxonomy.tsv                    GTDB's taxonomy TSV: accession<TAB>d__...;s__...
#   gtdb/genomes/GCF_9000000NN.1_genomic.fna.gz: a file per genome, named as GTDB names them
# Genome NN (genome_0000NN) gets accession GCF_9000000NN.1; odd genomes are
# listed as RS_GCF_... (RefSeq), even ones as GB_GCA_... (GenBank: the file
# is still GCF_, its twin), as GTDB lists either. GTDB has no strains: each
# genome maps to its species. The lines are written in reverse order, so
# that a test can check that ids do not depend on the order. The output is
# the same bytes on every run (gzip -n: no name or time in the header).
# Usage, from the repository root: tools/make_gtdb_fixture.sh [test_data]
set -euo pipefail
data=${1:-test_data}
out=$data/gtdb
rm -rf "$out"
mkdir -p "$out/genomes"

# taxid -> scientific name
declare -A name
while IFS='|' read -r id scientific; do
  name[$id]=$scientific
done < <(awk -F'\t[|]\t' '{ print $1 "|" $2 }' "$data/taxonomy/names.dmp")

# The ranks above the genus are those of taxonomy/nodes.dmp: 1000001 phylum,
# 1000002 class, 1000003 order, 1000004 family, under Bacteria (1000000).
upper="d__${name[1000000]};p__${name[1000001]};c__${name[1000002]};o__${name[1000003]};f__${name[1000004]}"

lines=()
while IFS=$'\t' read -r genome _strain species genus _; do
  [ "$genome" = genome ] && continue
  number=${genome#genome_}
  accession=$(printf 'GCF_9%08d.1' $((10#$number)))
  n=$((10#$number))
  if ((n % 2)); then listed="RS_$accession"; else listed="GB_GCA_${accession#GCF_}"; fi
  lines+=("$listed	$upper;g__${name[$genus]};s__${name[$species]}")
  gzip -n -9 -c "$data/genomes/$genome.fna" >"$out/genomes/${accession}_genomic.fna.gz"
done <"$data/genomes.tsv"

for ((i = ${#lines[@]} - 1; i >= 0; i--)); do printf '%s\n' "${lines[i]}"; done >"$out/taxonomy.tsv"
