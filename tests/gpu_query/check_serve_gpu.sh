#!/usr/bin/env bash
# A GPU server (`metawarp serve --device gpu`) answers queries of changing
# classifier options on the one upload (its engine takes each query's
# options: GpuQueryEngine::use_options) with outputs byte-identical to the
# CPU's own query; a query asking for another shard layout is loaded again.
#
#   check_serve_gpu.sh METAWARP TEST_DATA_DIR WORK_DIR
#
# Exits 77 (ctest: skipped) when there is no GPU.
set -euo pipefail
if ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIPPED: no usable CUDA device"; exit 77; fi
mw=$(realpath "$1") test_data=$(realpath "$2") work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
set -m
r1=$test_data/reads_R1.fq r2=$test_data/reads_R2.fq
"$mw" build db "$test_data/genomes" --taxonomy "$test_data/taxonomy" \
  --seqid2taxid "$test_data/seqid2taxid.map" --device cpu -q
"$mw" serve db --socket s.sock --device gpu --shards-per-gpu 2 -t 4 2>serve.log &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 600); do grep -q '^serve: listening' serve.log && break; sleep 0.1; done
grep -q '^serve: listening' serve.log

# Each option set through the server (in this order, so the engine's options
# change from query to query) against the CPU's own query.
n=0
while read -r -a options; do
  n=$((n + 1))
  "$mw" query --server s.sock db "$r1" "$r2" --device gpu --shards-per-gpu 2 -t 4 \
    -o "$n.gpu.tsv" --kraken-output "$n.gpu.kraken" --report "$n.gpu.report" \
    "${options[@]}" 2>"$n.gpu.stderr"
  "$mw" query db "$r1" "$r2" --device cpu -t 4 -q \
    -o "$n.cpu.tsv" --kraken-output "$n.cpu.kraken" --report "$n.cpu.report" "${options[@]}"
  for kind in tsv kraken report; do cmp "$n.gpu.$kind" "$n.cpu.$kind"; done
  grep -q "held by the server" "$n.gpu.stderr"
  echo "server on the GPU == CPU: ${options[*]:-(defaults)}"
done <<'OPTIONS'
--top-hits
--confidence 0.3
--hit-diff 0 --max-candidates 2
--report-minimizer-data --lowest species

OPTIONS

# Another layout is another upload.
"$mw" query --server s.sock db "$r1" "$r2" --device gpu --shards-per-gpu 3 -t 4 -o layout.tsv \
  2>layout.stderr
! grep -q "held by the server" layout.stderr
cmp layout.tsv 5.cpu.tsv
echo "another shard layout is loaded again, same outputs"
