#!/usr/bin/env bash
# tools/check_layers.sh itself: on a small tree it passes arrows that point
# down (parse -> cut -> decode) and fails, naming the file, each that points
# up inside src/io/ or a file outside its three rooms.
set -euo pipefail
check=$1/tools/check_layers.sh
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree"/src/io/{decode,cut,parse}
echo '#include "metawarp/host/channel.hpp"' >"$tree/src/io/decode/source.hpp"
echo '#include "io/decode/source.hpp"' >"$tree/src/io/cut/blocks.hpp"
printf '#include "io/cut/blocks.hpp"\n#include "io/decode/source.hpp"\n' >"$tree/src/io/parse/reader.hpp"
bash "$check" "$tree" >/dev/null || { echo "FAIL: arrows pointing down were refused"; exit 1; }

expect_refused() {  # FILE LINE WORDS: planting LINE in FILE fails the check, naming FILE and WORDS
  local file=$1 line=$2 words=$3 out
  echo "$line" >>"$tree/$file"
  if out=$(bash "$check" "$tree"); then echo "FAIL: $file with '$line' passed"; exit 1; fi
  grep -q "$file.*$words" <<<"$out" || { echo "FAIL: no line naming $file ($words): $out"; exit 1; }
  sed -i '$d' "$tree/$file"
}
expect_refused src/io/cut/blocks.hpp '#include "io/parse/reader.hpp"' 'may not use'
expect_refused src/io/decode/source.hpp '#include "io/cut/blocks.hpp"' 'may not use'
expect_refused src/io/decode/source.hpp '#include "io/parse/reader.hpp"' 'may not use'
touch "$tree/src/io/flat.cpp"
expect_refused src/io/flat.cpp '' 'belongs in decode/, cut/ or parse/'
rm "$tree/src/io/flat.cpp"
mkdir "$tree/src/io/misc"
if bash "$check" "$tree" >/dev/null; then echo "FAIL: a fourth folder in src/io/ passed"; exit 1; fi
echo "check_layers refuses every arrow that points up inside src/io/"
