#!/usr/bin/env bash
# Quick start: installs what is missing, builds metawarp, builds a database
# from the synthetic references in test_data/ and classifies its reads.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target metawarp
out=${DEMO_DIR:-build/demo}
mkdir -p "$out"
./build/metawarp build "$out/demo.mwdb" test_data/genomes \
  --taxonomy test_data/taxonomy --seqid2taxid test_data/seqid2taxid.map
./build/metawarp info "$out/demo.mwdb"
./build/metawarp query "$out/demo.mwdb" test_data/reads_R1.fq test_data/reads_R2.fq \
  --output "$out/reads.tsv" --report "$out/report.txt" --abundance "$out/abundance.tsv"
echo "== Kraken-style report ($out/report.txt) =="
cat "$out/report.txt"
if command -v python3 >/dev/null; then
  echo "== accuracy against the generator's truth =="
  python3 tools/evaluate.py --truth test_data/truth.tsv --output "$out/reads.tsv" \
    --taxonomy test_data/taxonomy
fi
