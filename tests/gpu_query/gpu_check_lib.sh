# What the GPU command-line checks check_gpu_parts.sh and check_shards.sh
# share (sourced by them; each defines check NAME GENOMES TAXONOMY MAP R1 R2
# and sets data, the shared data folder).

# check on the refs138 subset with the art_mock pairs, when both are present.
check_refs138_art_mock() {
  local refs=$data/refs138
  local r1=$data/reads/simulated/art_mock_R1.fq.gz r2=$data/reads/simulated/art_mock_R2.fq.gz
  if [ -e "$refs/genomes" ] && [ -e "$r1" ] && [ -e "$r2" ]; then
    check refs138 "$refs/genomes" "$refs/taxonomy/subset" "$refs/seqid2taxid.map" "$r1" "$r2"
  else
    echo "refs138 / art_mock absent: only test_data checked"
  fi
}
