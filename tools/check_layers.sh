#!/usr/bin/env bash
# Fails when a file includes a project header from a folder it may not
# depend on: the arrows of docs/architecture.md ("Homes") point one way,
#   include/metawarp (the library) <- kernels/ <- src/ <- tools/,
# and inside src/ each module includes only the modules below it.
# Usage: tools/check_layers.sh [repository root]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

# folder  -> the top-level include prefixes its files may use ("metawarp" is
# include/metawarp; the others are src/ modules and kernels/).
declare -A allowed=(
  [include/metawarp]="metawarp"
  [kernels]="metawarp kernels"
  [src/io]="metawarp io"
  [src/taxonomy]="metawarp taxonomy io"
  [src/output]="metawarp output"
  [src/db]="metawarp db taxonomy io output"
  [src/report]="metawarp report db taxonomy io"
  [src/pipeline]="metawarp pipeline io db report taxonomy output kernels"
  [src/cli]="metawarp cli pipeline io db report taxonomy output"
)

status=0
for folder in "${!allowed[@]}"; do
  [ -d "$folder" ] || continue
  while IFS= read -r hit; do
    file=${hit%%:*}
    prefix=$(sed -E 's/.*#include "([A-Za-z0-9_]+)\/.*/\1/' <<<"${hit#*:}")
    if [[ " ${allowed[$folder]} " != *" $prefix "* ]]; then
      echo "layering: $file includes \"$prefix/...\", which $folder/ may not use (allowed: ${allowed[$folder]})"
      status=1
    fi
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[A-Za-z0-9_]+/' "$folder" \
             --include='*.hpp' --include='*.cpp' --include='*.cuh' --include='*.cu' \
           | sed -E 's/^([^:]*):[0-9]+:/\1:/' || true)
done
[ $status -eq 0 ] && echo "layering: every include points down the layers"
exit $status
