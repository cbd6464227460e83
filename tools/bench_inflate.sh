#!/usr/bin/env bash
# Decompression throughput of FILE: `zcat` (the system's gzip, one core) as
# the outside reference, then tools/bench_inflate's lines (zlib, ISA-L,
# read-ahead, member-parallel with THREADS threads).
#   tools/bench_inflate.sh BUILD_DIR FILE [THREADS]
set -euo pipefail
build=$1 file=$2 threads=${3:-4}
bytes=$(zcat -f -- "$file" | wc -c)
start=$(date +%s.%N)
zcat -f -- "$file" >/dev/null
end=$(date +%s.%N)
awk -v b="$bytes" -v s="$start" -v e="$end" \
  'BEGIN { printf "%-32s %8.1f MB/s uncompressed  (%.3f s, %d bytes)\n", "zcat", b / (e - s) / 1e6, e - s, b }'
"$build/tools/bench_inflate" "$file" "$threads"
