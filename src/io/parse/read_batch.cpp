#include "io/parse/read_batch.hpp"

#include <algorithm>
#include <optional>

namespace metawarp::io {
namespace {

// Built with append: GCC 12 reports a false -Wrestrict for "'" + std::string once inlined.
std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  return out.append(1, '\'').append(text).append(1, '\'');
}

// The messages of mismatched pairs. They are built only when a pair is bad,
// so a good pair costs no allocation.

InputError count_mismatch(const RecordBlock& block1, const RecordBlock& block2, bool first_longer,
                          std::uint64_t record) {
  const std::string& file1 = block1.display_name;
  const std::string& file2 = block2.display_name;
  const std::string& longer = first_longer ? file1 : file2;
  const std::string& shorter = first_longer ? file2 : file1;
  return InputError(file1 + " / " + file2, record,
                    longer + " has more records than " + shorter + " (which ends after record " +
                        std::to_string(record - 1) + ")");
}

InputError mate_ids_differ(const RecordBlock& block1, const RecordBlock& block2,
                           const RecordView& mate1, const RecordView& mate2) {
  const std::string& file1 = block1.display_name;
  const std::string& file2 = block2.display_name;
  return InputError(file1 + " / " + file2, mate1.number,
                    "mate ids differ: " + quoted(mate1.id()) + " in " + file1 + " and " +
                        quoted(mate2.id()) + " in " + file2);
}

InputError odd_record_count(const RecordBlock& block, const RecordView& mate1) {
  return InputError(block.display_name, mate1.number + 1,
                    "interleaved file has an odd number of records: mate of " +
                        quoted(mate1.id()) + " missing");
}

InputError interleaved_mates_differ(const RecordBlock& block, const RecordView& mate1,
                                    const RecordView& mate2) {
  return InputError(block.display_name, mate2.number,
                    "interleaved mates differ: " + quoted(mate1.id()) + " (record " +
                        std::to_string(mate1.number) + ") and " + quoted(mate2.id()));
}

// Sized once for the most records a batch may hold, never shrunk: views
// are plain values, so a batch of the same size allocates nothing.
void grow_to(std::vector<RecordView>& records, std::size_t size) {
  if (records.size() < size) records.resize(size);
}

// The block's next record into `record`: false at its end, an error stored
// in `error` (then also false).
bool next_record(BlockRecordReader& reader, RecordView& record, std::exception_ptr& error) {
  try {
    return reader.next(record);
  } catch (const InputError&) {
    error = std::current_exception();
    return false;
  }
}

// Each parse below takes the steps of a serial read in its order (mate 1,
// mate 2, counts, ids), so the first problem it meets is the serial one; pair
// by pair, so each pair's ids are still in cache when they are compared.

ParsedReads parse_single(const ReadBlocks& blocks, ReadViewBatch& batch) {
  grow_to(batch.mates1, blocks.first.records + 1);  // + 1: the call that finds the end
  BlockRecordReader reader(blocks.first, batch.storage1);
  ParsedReads parsed;
  while (next_record(reader, batch.mates1[parsed.count], parsed.error)) ++parsed.count;
  return parsed;
}

ParsedReads parse_two_files(const ReadBlocks& blocks, ReadViewBatch& batch) {
  const std::size_t most = std::max(blocks.first.records, blocks.second.records);
  grow_to(batch.mates1, most + 1);
  grow_to(batch.mates2, most + 1);
  BlockRecordReader reader1(blocks.first, batch.storage1);
  BlockRecordReader reader2(blocks.second, batch.storage2);
  ParsedReads parsed;
  for (std::size_t& pair = parsed.count;; ++pair) {
    RecordView& mate1 = batch.mates1[pair];
    RecordView& mate2 = batch.mates2[pair];
    const bool has1 = next_record(reader1, mate1, parsed.error);
    if (parsed.error) return parsed;
    const bool has2 = next_record(reader2, mate2, parsed.error);
    if (parsed.error) return parsed;
    if (!has1 && !has2) return parsed;
    if (has1 != has2) {
      parsed.error = std::make_exception_ptr(count_mismatch(
          blocks.first, blocks.second, has1, has1 ? mate1.number : mate2.number));
      return parsed;
    }
    if (!mates_match(mate1.id(), mate2.id())) {
      parsed.error = std::make_exception_ptr(mate_ids_differ(blocks.first, blocks.second, mate1, mate2));
      return parsed;
    }
  }
}

ParsedReads parse_interleaved(const ReadBlocks& blocks, ReadViewBatch& batch) {
  const std::size_t pairs = blocks.first.records / 2 + 1;
  grow_to(batch.mates1, pairs);
  grow_to(batch.mates2, pairs);
  BlockRecordReader reader(blocks.first, batch.storage1);
  ParsedReads parsed;
  for (std::size_t& pair = parsed.count;; ++pair) {
    RecordView& mate1 = batch.mates1[pair];
    RecordView& mate2 = batch.mates2[pair];
    if (!next_record(reader, mate1, parsed.error)) return parsed;
    if (!next_record(reader, mate2, parsed.error)) {
      if (!parsed.error) parsed.error = std::make_exception_ptr(odd_record_count(blocks.first, mate1));
      return parsed;
    }
    if (!mates_match(mate1.id(), mate2.id())) {
      parsed.error = std::make_exception_ptr(interleaved_mates_differ(blocks.first, mate1, mate2));
      return parsed;
    }
  }
}

void copy_records(const std::vector<RecordView>& views, std::size_t count,
                  std::vector<SequenceRecord>& records) {
  if (records.size() < count + 1) records.resize(count + 1);
  for (std::size_t i = 0; i < count; ++i) {
    records[i].header.assign(views[i].header);
    records[i].sequence.assign(views[i].sequence);
    records[i].quality.assign(views[i].quality);
    records[i].number = views[i].number;
  }
}

}  // namespace

bool mates_match(std::string_view id1, std::string_view id2) {
  if (id1 == id2) return true;
  const auto strip = [](std::string_view id, std::string_view suffix) {
    return id.size() >= suffix.size() && id.substr(id.size() - suffix.size()) == suffix
               ? std::optional<std::string_view>(id.substr(0, id.size() - suffix.size()))
               : std::nullopt;
  };
  const auto fragment1 = strip(id1, "/1");
  const auto fragment2 = strip(id2, "/2");
  return fragment1 && fragment2 && *fragment1 == *fragment2;
}

ParsedReads parse_read_views(ReadLayout layout, const ReadBlocks& blocks, ReadViewBatch& batch) {
  switch (layout) {
    case ReadLayout::single: return parse_single(blocks, batch);
    case ReadLayout::two_files: return parse_two_files(blocks, batch);
    case ReadLayout::interleaved: return parse_interleaved(blocks, batch);
  }
  return {};
}

ParsedReads parse_read_blocks(ReadLayout layout, const ReadBlocks& blocks,
                              std::vector<SequenceRecord>& mates1,
                              std::vector<SequenceRecord>& mates2) {
  ReadViewBatch views;
  const ParsedReads parsed = parse_read_views(layout, blocks, views);
  copy_records(views.mates1, parsed.count, mates1);
  if (layout != ReadLayout::single) copy_records(views.mates2, parsed.count, mates2);
  return parsed;
}

}  // namespace metawarp::io
