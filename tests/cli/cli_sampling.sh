# build --sampling (issue 26): content-defined databases record their sampling
# (info shows it), classify the synthetic reads and no random pair, and are the
# same file however the build is split (partitions, CPU shards, a memory
# bound), and the partitioned query gives the whole database's outputs; a
# sampling that is not one is refused in one line naming the forms.
source "$(dirname "$0")/cli_test_lib.sh"

r1=$data/reads_R1.fq
r2=$data/reads_R2.fq

# species_calls <output.tsv>: "<pairs at their species> <pairs at a species> <random pairs
# classified>" against test_data's truth (column 3: the species; 0: a random pair), a call's
# species found up its lineage in the taxonomy.
species_calls() {
  awk -F'\t' 'FILENAME ~ /nodes.dmp$/ { parent[$1] = $3; rank[$1] = $5; next }
    FILENAME ~ /truth.tsv$/ { if (FNR > 1) want[$1] = $3; next }
    /^#/ || $1 == "read_id" { next }
    { if (want[$1] == 0) { random += ($2 == "C"); next }
      t = $3; while (t != "" && t != 0 && t != 1 && rank[t] != "species") t = parent[t]
      if (rank[t] == "species") { at++; correct += (t == want[$1]) } }
    END { printf "%d %d %d\n", correct, at, random }' \
    "$data/taxonomy/nodes.dmp" "$data/truth.tsv" "$1"
}

for sampling in scaled:8 minimizer:12; do
  name=${sampling%%:*}
  expect_success "$metawarp" build "$name.mwdb" "$data/genomes" --taxonomy "$data/taxonomy" \
    --seqid2taxid "$data/seqid2taxid.map" -q -t 2 --device cpu --sampling "$sampling"
  expect_success "$metawarp" info "$name.mwdb"
  grep -q "^sampling  *$sampling\$" stdout || fail "info: no 'sampling $sampling': $(cat stdout)"
  grep -q '^sketch size  *64 (at most, per window)$' stdout ||
    fail "info: the sketch size is not the cap 64: $(grep sketch stdout)"
  expect_success "$metawarp" query "$name.mwdb" "$r1" "$r2" -q -o "$name.tsv" \
    --kraken-output "$name.kraken"
  read -r correct at random <<<"$(species_calls "$name.tsv")"
  # 1,980 read pairs of the 18 genomes, 20 random pairs.
  [ "$random" -eq 0 ] || fail "$sampling: $random random pairs classified"
  [ "$correct" -ge 1780 ] || fail "$sampling: $correct of 1980 pairs at their species"
  [ "$correct" -eq "$at" ] || fail "$sampling: $((at - correct)) pairs at a wrong species"
  pass "$sampling: $correct of 1980 pairs at their species, none wrong, no random pair"

  # The same file whatever the split of the build.
  for layout in "--partitions 2" "--partitions 3 --shards 2" "--shards 2" \
    "--partition-size 1m"; do
    # shellcheck disable=SC2086
    expect_success "$metawarp" build parts.mwdb "$data/genomes" --taxonomy "$data/taxonomy" \
      --seqid2taxid "$data/seqid2taxid.map" -q -t 2 --device cpu --sampling "$sampling" $layout
    cmp -s "$name.mwdb" parts.mwdb || fail "$sampling: build $layout differs from the plain build"
  done
  pass "$sampling: builds in partitions and shards are the plain database, byte for byte"

  # The database read part by part: the same outputs.
  expect_success "$metawarp" query "$name.mwdb" "$r1" "$r2" -q -o parts.tsv \
    --kraken-output parts.kraken --partitions 3
  cmp -s "$name.tsv" parts.tsv || fail "$sampling: query --partitions 3 output differs"
  cmp -s "$name.kraken" parts.kraken || fail "$sampling: query --partitions 3 evidence differs"
  pass "$sampling: query --partitions 3 gives the whole database's outputs"
done

# Window sampling is today's database, byte for byte (the file only says so).
build_test_database default.mwdb
expect_success "$metawarp" build window.mwdb "$data/genomes" --taxonomy "$data/taxonomy" \
  --seqid2taxid "$data/seqid2taxid.map" -q -t 2 --sampling window
cmp -s default.mwdb window.mwdb || fail "--sampling window differs from the default build"
expect_success "$metawarp" info window.mwdb
grep -q '^sketch size  *16$' stdout || fail "window sampling: sketch size $(grep sketch stdout)"
pass "--sampling window is the default build, byte for byte, with s 16"

for bad in scaled:1 scaled:65536 scaled minimizer:129 minimizer:x window:3 fracminhash:8 ''; do
  expect_error "--sampling" "$metawarp" build bad.mwdb "$data/genomes" --no-taxonomy \
    --sampling "$bad"
  grep -qF "must be" stderr || fail "--sampling '$bad': the message says nothing of the forms"
  [ ! -e bad.mwdb ] || fail "--sampling '$bad' left bad.mwdb"
done
no_temporaries .
echo "all sampling checks passed"
