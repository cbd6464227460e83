#!/usr/bin/env bash
# Decompression throughput of FILE: `zcat` (the system's gzip, one core) as
# the outside reference, then tools/bench_inflate's lines (zlib, ISA-L,
# read-ahead, then the parallel path (BGZF members, or one ordinary member
# in pieces) on each thread count of THREADS, a comma-separated list).
#   tools/bench_inflate.sh BUILD_DIR FILE [THREADS [REPEATS]]
#   e.g. tools/bench_inflate.sh build reads_R1.fq.gz 1,2,4,8,16
set -euo pipefail
build=$1 file=$2 threads=${3:-1,2,4,8,16} repeats=${4:-3}
bytes=$(zcat -f -- "$file" | wc -c)
start=$(date +%s.%N)
zcat -f -- "$file" >/dev/null
end=$(date +%s.%N)
awk -v b="$bytes" -v s="$start" -v e="$end" \
  'BEGIN { printf "%-32s %8.1f MB/s uncompressed  (%.3f s, %d bytes)\n", "zcat", b / (e - s) / 1e6, e - s, b }'
"$build/tools/bench_inflate" "$file" "$threads" "$repeats"
