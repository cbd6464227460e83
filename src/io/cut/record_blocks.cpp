#include "io/cut/record_blocks.hpp"

#include <algorithm>
#include <cstring>

#include "io/cut/cut_source.hpp"
#include "io/cut/input_error.hpp"
#include "io/decode/byte_source.hpp"

namespace metawarp::io {
namespace {

// Read sizes: the first read before any record size is known, and the least
// of later ones (the most is the source's, io/cut/cut_source.hpp).
constexpr std::size_t first_read_size = std::size_t{256} << 10;
constexpr std::size_t min_read_size = std::size_t{16} << 10;
// The most reserved up front for a block; beyond it the block grows as read.
constexpr std::size_t max_reserve = std::size_t{256} << 20;

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max()
                                                           : a + b;
}

}  // namespace

RecordBlockSplitter::RecordBlockSplitter(const std::string& path)
    : display_name_(input_display_name(path)) {
  try {
    CutSource input = open_cut_source(path);
    source_ = std::move(input.source);
    max_read_size_ = input.max_read_bytes;
    scanner_ = WholeRecordScanner(input.scan);
    read_ahead_ = input.read_ahead;
  } catch (const SourceError& error) {
    throw InputError(display_name_, 0, error.what());
  }
}

RecordBlockSplitter::RecordBlockSplitter(std::unique_ptr<ByteSource> source, std::string display_name,
                                         std::size_t max_read_bytes, ScanThreads scan, bool read_ahead)
    : source_(std::move(source)),
      max_read_size_(std::max(max_read_bytes, min_read_size)),
      scanner_(scan),
      display_name_(std::move(display_name)),
      read_ahead_(read_ahead) {}

void RecordBlockSplitter::next_block(RecordBlock& block, std::size_t max_records,
                                     std::size_t max_bytes, RecordCount count) {
  block.display_name.assign(display_name_);
  block.format = format_;
  block.first_record = records_done_ + 1;
  block.first_line = lines_done_ + 1;
  block.records = 0;
  block.bytes.clear();
  block.read_error.reset();
  block.cut_inside_line = false;
  fill(block, max_records, max_bytes);
  if (count == RecordCount::even && block.records % 2 == 1 && !block.ends_input_early())
    fill(block, saturating_add(block.records, 1), no_byte_limit);
  // The first block (the record size is known now), or the read started for
  // the next block was taken whole by this one.
  start_read_ahead(carry_.size(), 1);
}

void RecordBlockSplitter::extend_block(RecordBlock& block, std::size_t more_records) {
  fill(block, saturating_add(block.records, more_records), no_byte_limit);
  start_read_ahead(carry_.size(), 1);
}

void RecordBlockSplitter::fill(RecordBlock& block, std::uint64_t record_limit,
                               std::size_t byte_limit) {
  record_limit_ = record_limit;
  byte_limit_ = byte_limit;
  const std::size_t records_before = block.records;
  const std::size_t start = block.bytes.size();
  // The next block's bytes are read while this one is scanned: what this
  // block lacks too (taken from the front of that read).
  if (take_carry(block, start)) start_read_ahead(block.bytes.size(), 2);
  std::size_t pos = start;  // always at a record boundary between the steps below

  if (!format_known_) detect_format(block, pos);
  block.format = format_;
  if (format_ != Format::unknown) {
    while (true) {
      if (block.records >= record_limit || (block.records > 0 && pos >= byte_limit)) {
        carry_.append(block.bytes.data() + pos, block.bytes.size() - pos);
        block.bytes.resize(pos);
        break;
      }
      // Whole records already read are skipped without a call per line;
      // the steps below take the record that is not (and read on).
      if (skip_read_records(block, pos, record_limit, byte_limit)) continue;
      if (!skip_blank_lines(block, pos)) break;  // end of input
      ++block.records;
      if (!skip_record(block, pos)) break;  // end of input
    }
  }
  records_done_ += block.records - records_before;
  bytes_done_ += block.bytes.size() - start;
}

void RecordBlockSplitter::detect_format(RecordBlock& block, std::size_t& pos) {
  format_known_ = true;
  if (!skip_blank_lines(block, pos)) return;  // empty input: no records
  const char first = block.bytes.data()[pos];
  if (first == '>') {
    format_ = Format::fasta;
  } else if (first == '@') {
    format_ = Format::fastq;
  } else {
    // Neither: the block is this one line (as much of it as a header may
    // hold), which SequenceReader reports as bad data in record 1; nothing
    // after it is read.
    block.records = 1;
    skip_line(block, pos, LineKind::header);
    block.bytes.resize(pos);
    at_end_ = true;
  }
}

bool RecordBlockSplitter::take_carry(RecordBlock& block, std::size_t start) {
  // Read ahead into a buffer reserved for the block: swapped in whole.
  if (start == 0 && ahead_ && ahead_->take(block.bytes, carry_.view())) {
    carry_.clear();
    return true;
  }
  block.bytes.reserve(expected_size(start, block.records));
  block.bytes.append(carry_.view());
  carry_.clear();
  return false;
}

void RecordBlockSplitter::start_read_ahead(std::size_t held, std::size_t blocks) {
  // Not past the end, a read error or a rejected line: a serial cut would
  // not read there either. And once a record size is known.
  if (!read_ahead_ || at_end_ || records_done_ == 0 || (ahead_ && !ahead_->idle())) return;
  if (!ahead_) ahead_ = std::make_unique<BlockReadAhead>(*source_);
  // Blocks with this one's limits, one record spare each and a little more
  // (where records grow longer, the size so far falls short; what a block
  // lacks is taken from the front of the next read, which then waits for
  // it). The next one's carry goes in front of the read (more than fits
  // there is moved: where the limits shrank).
  const std::size_t need = read_size(0, 0) + read_size(0, 0) / 256;
  const std::size_t want = blocks * need > held ? blocks * need - held : 0;
  const std::size_t front_room = need / 64 + (std::size_t{64} << 10);
  ahead_->start(std::clamp(want, min_read_size, max_read_size_), front_room, expected_size(0, 0));
}

std::size_t RecordBlockSplitter::read_source(char* destination, std::size_t capacity) {
  return ahead_ ? ahead_->read(destination, capacity) : source_->read(destination, capacity);
}

bool RecordBlockSplitter::read_more(RecordBlock& block) {
  if (at_end_) return false;
  const std::size_t size = block.bytes.size();
  const std::size_t want = read_size(block.records, size);
  block.bytes.reserve(size + want);
  std::size_t got = 0;
  try {
    got = read_source(block.bytes.data() + size, want);
  } catch (const SourceError& error) {
    block.read_error = error;
    at_end_ = true;
    return false;
  }
  if (got == 0) {
    at_end_ = true;
    return false;
  }
  block.bytes.resize(size + got);
  return true;
}

std::size_t RecordBlockSplitter::read_size(std::uint64_t records, std::size_t bytes) const {
  if (records_done_ == 0) return first_read_size;
  const double bytes_per_record = double(bytes_done_) / double(records_done_);
  // The record in progress (counted already) may be partly read: one spare.
  const double records_left = double(record_limit_ - std::min<std::uint64_t>(record_limit_, records)) + 1;
  double want = records_left * bytes_per_record;
  if (byte_limit_ != no_byte_limit && bytes < byte_limit_)
    want = std::min(want, double(byte_limit_ - bytes) + bytes_per_record);
  return std::size_t(std::clamp(want, double(min_read_size), double(max_read_size_)));
}

std::size_t RecordBlockSplitter::expected_size(std::size_t start, std::uint64_t records) const {
  if (records_done_ == 0) return 0;  // no record size known yet: grow as read
  const double bytes_per_record = double(bytes_done_) / double(records_done_);
  const double records_left = double(record_limit_ - std::min<std::uint64_t>(record_limit_, records));
  double expected = double(start) + (records_left + 1) * bytes_per_record * 1.05;
  if (byte_limit_ != no_byte_limit) expected = std::min(expected, double(byte_limit_) + 2 * bytes_per_record);
  return std::size_t(std::min(expected, double(max_reserve)));
}

bool RecordBlockSplitter::ensure(RecordBlock& block, std::size_t pos, std::size_t count) {
  while (block.bytes.size() - pos < count) {
    if (!read_more(block)) return false;
  }
  return true;
}

bool RecordBlockSplitter::skip_line(RecordBlock& block, std::size_t& pos, LineKind kind) {
  std::size_t from = pos;
  std::size_t checked = 0;  // of the line's bytes, by judge_partial_line()
  while (true) {
    const char* data = block.bytes.data();
    const std::size_t size = block.bytes.size();
    if (from < size) {
      if (const void* line_end = std::memchr(data + from, '\n', size - from)) {
        pos = std::size_t(static_cast<const char*>(line_end) - data) + 1;
        ++lines_done_;
        return true;
      }
    }
    from = size;  // no '\n' up to here: search only the new bytes
    // The line's end is not here yet: judge it before reading more of it.
    if (judge_partial_line({data + pos, size - pos}, kind, checked) != PartialLine::acceptable) {
      block.cut_inside_line = true;
      at_end_ = true;
      pos = size;
      return false;
    }
    if (!read_more(block)) {
      pos = block.bytes.size();  // a last line without '\n'
      return false;
    }
  }
}

bool RecordBlockSplitter::skip_blank_lines(RecordBlock& block, std::size_t& pos) {
  // Blank as SequenceReader sees it: empty once one trailing '\r' is removed.
  while (true) {
    if (!ensure(block, pos, 1)) return false;
    const char first = block.bytes.data()[pos];
    if (first == '\n') {
      ++pos;
      ++lines_done_;
      continue;
    }
    if (first != '\r') return true;
    if (!ensure(block, pos, 2)) {
      pos = block.bytes.size();  // a lone '\r' as the last line
      return false;
    }
    if (block.bytes.data()[pos + 1] != '\n') return true;
    pos += 2;
    ++lines_done_;
  }
}

bool RecordBlockSplitter::skip_read_records(RecordBlock& block, std::size_t& pos,
                                            std::uint64_t record_limit, std::size_t byte_limit) {
  const WholeRecords taken = scanner_.scan(format_, block.bytes.data(), block.bytes.size(), pos,
                                           ScanLimits{block.records, record_limit, byte_limit});
  if (taken.records == 0) return false;
  pos = taken.end;
  block.records += taken.records;
  lines_done_ += taken.lines;
  return true;
}

bool RecordBlockSplitter::skip_record(RecordBlock& block, std::size_t& pos) {
  if (format_ == Format::fastq) {
    if (!skip_line(block, pos, LineKind::header)) return false;
    for (int line = 1; line < 4; ++line) {
      if (!skip_line(block, pos, LineKind::fastq_body)) return false;
    }
    return true;
  }
  // FASTA: the header line, then every line up to one starting with '>'.
  if (!skip_line(block, pos, LineKind::header)) return false;
  while (true) {
    if (!ensure(block, pos, 1)) return false;
    if (block.bytes.data()[pos] == '>') return true;
    if (!skip_line(block, pos, LineKind::fasta_body)) return false;
  }
}

}  // namespace metawarp::io
