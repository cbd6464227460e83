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

# The default database: minimizers of 16 k-mers, k 20, s 64 (the cap), the
# same file as those options given; --sampling window alone is the database
# before issue 26 (k 16, s 16), the same file as its options given.
build_test_database default.mwdb
expect_success "$metawarp" info default.mwdb
grep -q '^sampling  *minimizer:16$' stdout || fail "default sampling: $(grep sampling stdout)"
grep -q '^k-mer length  *20$' stdout || fail "default k: $(grep k-mer stdout)"
expect_success "$metawarp" build given.mwdb "$data/genomes" --taxonomy "$data/taxonomy" \
  --seqid2taxid "$data/seqid2taxid.map" -q -t 2 --device cpu --sampling minimizer:16 -k 20 -s 64
cmp -s default.mwdb given.mwdb || fail "the default build differs from minimizer:16 -k 20 -s 64"
expect_success "$metawarp" build window.mwdb "$data/genomes" --taxonomy "$data/taxonomy" \
  --seqid2taxid "$data/seqid2taxid.map" -q -t 2 --sampling window
expect_success "$metawarp" build window16.mwdb "$data/genomes" --taxonomy "$data/taxonomy" \
  --seqid2taxid "$data/seqid2taxid.map" -q -t 2 --sampling window -k 16 -w 127 -s 16
cmp -s window.mwdb window16.mwdb || fail "--sampling window is not k 16, w 127, s 16"
expect_success "$metawarp" info window.mwdb
grep -q '^sketch size  *16$' stdout || fail "window sampling: sketch size $(grep sketch stdout)"
pass "the default is minimizer:16 with k 20, s 64; --sampling window is k 16, w 127, s 16"

# The automatic --hit-min and --hit-diff follow the database: a window database
# (as every database before issue 26) classifies as before, s/2 = 8 hits for a
# pair and hit-diff 3; a content-defined one with 2 and 0 (issue 26: the
# matched-bases rule keeps out the chance pairs 4 hits kept out).
for db in window:"--hit-min 8 --hit-diff 3" default:"--hit-min 2 --hit-diff 0"; do
  name=${db%%:*}
  expect_success "$metawarp" query "$name.mwdb" "$r1" "$r2" -q -o "$name.auto.tsv"
  # shellcheck disable=SC2086
  expect_success "$metawarp" query "$name.mwdb" "$r1" "$r2" -q -o "$name.given.tsv" ${db#*:}
  cmp -s "$name.auto.tsv" "$name.given.tsv" || fail "$name: the automatic hits are not ${db#*:}"
done
pass "pairs: window databases need 8 hits within 3 of the best, content-defined ones 2 and 0"

for bad in scaled:1 scaled:65536 scaled minimizer:129 minimizer:x window:3 fracminhash:8 ''; do
  expect_error "--sampling" "$metawarp" build bad.mwdb "$data/genomes" --no-taxonomy \
    --sampling "$bad"
  grep -qF "must be" stderr || fail "--sampling '$bad': the message says nothing of the forms"
  [ ! -e bad.mwdb ] || fail "--sampling '$bad' left bad.mwdb"
done
no_temporaries .
echo "all sampling checks passed"
