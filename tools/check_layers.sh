#!/usr/bin/env bash
# Fails when a file includes a project header from a folder it may not
# depend on: the arrows of docs/architecture.md ("Homes") point one way,
#   include/metawarp (the library) <- kernels/ <- src/ <- tools/,
# inside src/ each module includes only the modules below it, and inside
# src/io/ each room only the rooms below it: decode <- cut <- parse.
# Usage: tools/check_layers.sh [repository root]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

# folder  -> the include prefixes its files may use ("metawarp" is
# include/metawarp; the others are src/ modules and kernels/; "io/<room>" is
# one folder of src/io/, "io" all of them).
declare -A allowed=(
  [include/metawarp]="metawarp"
  [kernels]="metawarp kernels"
  [src/io/decode]="metawarp io/decode"
  [src/io/cut]="metawarp io/decode io/cut"
  [src/io/parse]="metawarp io/decode io/cut io/parse"
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
    path=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"${hit#*:}")
    prefix=${path%%/*}
    rest=${path#*/}
    room=$prefix/${rest%%/*}  # io/decode for "io/decode/byte_source.hpp"
    if [[ " ${allowed[$folder]} " != *" $prefix "* && " ${allowed[$folder]} " != *" $room "* ]]; then
      echo "layering: $file includes \"$path\", which $folder/ may not use (allowed: ${allowed[$folder]})"
      status=1
    fi
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[A-Za-z0-9_]+/' "$folder" \
             --include='*.hpp' --include='*.cpp' --include='*.cuh' --include='*.cu' \
           | sed -E 's/^([^:]*):[0-9]+:/\1:/' || true)
done
# src/pipeline/'s two rooms, build/ and query/, share only what lies beside
# them in src/pipeline/: neither includes the other.
for pair in build:query query:build; do
  room=${pair%%:*} other=${pair#*:}
  [ -d "src/pipeline/$room" ] || continue
  while IFS= read -r hit; do
    echo "layering: ${hit%%:*} includes pipeline/$other/, which src/pipeline/$room/ may not use"
    status=1
  done < <(grep -rlE "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"pipeline/$other/" \
             "src/pipeline/$room" || true)
done
# src/io/ holds its three rooms only: a file beside them would sit outside the flow.
while IFS= read -r stray; do
  echo "layering: $stray lies in src/io/ itself; it belongs in decode/, cut/ or parse/"
  status=1
done < <(find src/io -maxdepth 1 -type f 2>/dev/null)
for room in src/io/*/; do
  room=${room%/}
  [ -d "$room" ] || continue
  [ -v "allowed[$room]" ] && continue
  echo "layering: $room/ is no room of src/io/ (decode, cut, parse): add it to tools/check_layers.sh"
  status=1
done
[ $status -eq 0 ] && echo "layering: every include points down the layers"
exit $status
