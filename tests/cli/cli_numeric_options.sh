# Numbers on the command line (issue 25, case 9): a negative value, one past
# 2^64 or garbage is refused by every command with one line naming the
# option, the value and the range, before any work; in-range values and size
# suffixes still work. tests/cli/test_number_options.cpp walks every numeric
# option of the parser; this shows the same end to end.
source "$(dirname "$0")/cli_test_lib.sh"

build_test_database db
genome="$data/genomes/genome_000001.fna"
reads="$data/reads_R1.fq"
build=("$metawarp" build new.mwdb "$genome" --no-taxonomy -q)
query=("$metawarp" query db "$reads" -o out.tsv -q)

# The cases the tester found, each with the range it must name.
expect_error "--batch-size -1: must be a whole number between 1 and " "${query[@]}" --batch-size -1
expect_error "--batch-size 18446744073709551616: must be a whole number between 1 and " \
  "${query[@]}" --batch-size 18446744073709551616
expect_error "--partitions -1: must be a whole number between 0 and " "${query[@]}" --partitions -1
expect_error "--max-memory -1: must be a size in bytes between 0 and " "${query[@]}" --max-memory -1
expect_error "--hit-memory -1: must be a size in bytes between 0 and " "${query[@]}" --hit-memory -1
expect_error "--insert-size -1: must be a whole number between 0 and " "${query[@]}" \
  --insert-size -1
expect_error "--partitions -1: must be a whole number between 0 and 65536" "${build[@]}" \
  --partitions -1
expect_error "--partition-size -1: must be a size in bytes between 0 and " "${build[@]}" \
  --partition-size -1
expect_error "--batch-size 18446744073709551616: must be a whole number between 1 and " \
  "${build[@]}" --batch-size 18446744073709551616
[ ! -e out.tsv ] || fail "a refused query wrote out.tsv"
[ ! -e new.mwdb ] || fail "a refused build wrote new.mwdb"

# Every command, and the forms CLI11 alone would have read another way.
expect_error "--kmer-length 33: must be a whole number between 1 and 32" "${build[@]}" -k 33
expect_error "--window-length 4294967295: must be a whole number between 1 and " "${build[@]}" \
  -w 4294967295
expect_error "--threads 0x10: must be a whole number between 1 and " "${query[@]}" -t 0x10
expect_error "--threads ' 4': must be a whole number" "${query[@]}" -t ' 4'
expect_error "--max-memory 8q: must be a size in bytes" "${query[@]}" --max-memory 8q
expect_error "--max-memory 17179869184g: must be a size in bytes" "${query[@]}" \
  --max-memory 17179869184g
expect_error "--confidence nan: must be a number between 0 and 1" "${query[@]}" --confidence nan
expect_error "--confidence -0.1: must be a number between 0 and 1" "${query[@]}" --confidence -0.1
expect_error "--gpu -1: must be a whole number between 0 and " "${query[@]}" --gpu -1
expect_error "--gpu-memory -1: must be a size in bytes between 0 and " "$metawarp" info db \
  --gpu-memory -1
expect_error "--shards-per-gpu 65: must be a whole number between 1 and 64" "$metawarp" info db \
  --shards-per-gpu 65
expect_error "--gpu-lanes -1: must be a whole number between 1 and " "$metawarp" serve db \
  --socket s --gpu-lanes -1
[ ! -e s ] || fail "a refused serve made its socket"

# In range, with and without suffixes: the commands run.
expect_success "${query[@]}" --batch-size 100 --insert-size 0 --confidence 0.5 -t 2
expect_success "${query[@]}" --max-memory 1G --hit-memory 64m --partitions 2 -t 2
expect_success "${build[@]}" -k 15 -w 100 --partitions 2 --partition-size 2g -t 2
echo "all numeric option checks passed"
