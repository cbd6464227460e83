#pragma once
// The serial read that the query's batches replaced: one SequenceReader per
// file, record by record, the pair checks in this order. Its records and
// messages are the specification that ReadBlockCutter + parse_read_blocks
// must meet, whatever the cut (tests/io/test_read_blocks.cpp, the fuzzer).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/parse/read_batch.hpp"
#include "io/parse/sequence_reader.hpp"

namespace metawarp::io::test {

// The reads (pairs) before the first error, and that error's message.
struct SerialReads {
  std::vector<SequenceRecord> mates1;  // or single reads
  std::vector<SequenceRecord> mates2;  // empty for single reads
  std::optional<std::string> error;
};

// Field by field, numbering included.
inline bool same_records(const std::vector<SequenceRecord>& a,
                         const std::vector<SequenceRecord>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].header != b[i].header || a[i].sequence != b[i].sequence ||
        a[i].quality != b[i].quality || a[i].number != b[i].number)
      return false;
  }
  return true;
}

// Built with append: GCC 12 reports a false -Wrestrict for "'" + std::string once inlined.
inline std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  return out.append(1, '\'').append(text).append(1, '\'');
}

// `second`: mates 2 of two files, or null for one file (interleaved pairs
// when `interleaved`, else single reads).
inline SerialReads read_serially(SequenceReader& first, SequenceReader* second, bool interleaved) {
  SerialReads reads;
  const std::string file1 = input_display_name(first.path());
  const std::string file2 = second ? input_display_name(second->path()) : "";
  try {
    SequenceRecord mate1, mate2;
    while (true) {
      if (!second && !interleaved) {
        if (!first.next(mate1)) break;
      } else if (!second) {
        if (!first.next(mate1)) break;
        if (!first.next(mate2))
          throw InputError(file1, mate1.number + 1,
                           "interleaved file has an odd number of records: mate of " +
                               quoted(mate1.id()) + " missing");
        if (!mates_match(mate1.id(), mate2.id()))
          throw InputError(file1, mate2.number,
                           "interleaved mates differ: " + quoted(mate1.id()) + " (record " +
                               std::to_string(mate1.number) + ") and " + quoted(mate2.id()));
      } else {
        const bool has1 = first.next(mate1);
        const bool has2 = second->next(mate2);
        if (!has1 && !has2) break;
        if (has1 != has2) {
          const std::string& longer = has1 ? file1 : file2;
          const std::string& shorter = has1 ? file2 : file1;
          const std::uint64_t record = has1 ? mate1.number : mate2.number;
          throw InputError(file1 + " / " + file2, record,
                           longer + " has more records than " + shorter +
                               " (which ends after record " + std::to_string(record - 1) + ")");
        }
        if (!mates_match(mate1.id(), mate2.id()))
          throw InputError(file1 + " / " + file2, mate1.number,
                           "mate ids differ: " + quoted(mate1.id()) + " in " + file1 + " and " +
                               quoted(mate2.id()) + " in " + file2);
      }
      reads.mates1.push_back(mate1);
      if (second || interleaved) reads.mates2.push_back(mate2);
    }
  } catch (const InputError& error) {
    reads.error = error.what();
  }
  return reads;
}

}  // namespace metawarp::io::test
