#include "io/parse/record_views.hpp"

#include <stdexcept>

#include "io/cut/line_limits.hpp"
#include "io/cut/text_checks.hpp"

namespace metawarp::io {
namespace {

// SequenceReader's checks of a header line (without its '>' or '@'), as
// one pass without branches; a header failing it goes to SequenceReader,
// which names the problem.
bool clean_header(std::string_view header) {
  return header.size() < max_header_line_bytes && all_header_chars(header);
}

bool clean_fastq_line(std::string_view line) { return line.size() <= max_fastq_line_bytes; }

// Quality letters: printable ASCII without the space (sequence_reader.cpp).
bool clean_quality(std::string_view quality, std::string_view sequence) {
  return quality.size() == sequence.size() && clean_fastq_line(quality) &&
         all_bytes_in(quality, 0x21, 0x7e);
}

// The '+' line: '+' alone, or followed by the header or the id.
bool clean_plus_line(std::string_view line, std::string_view header) {
  if (line.empty() || line[0] != '+' || !clean_fastq_line(line)) return false;
  const std::string_view repeated = line.substr(1);
  return repeated.empty() || repeated == header || repeated == header_id(header);
}

// Every check of a FASTQ record's four lines at once: the part of the parse
// that touches each byte. Built for AVX2 too where the compiler can (the
// loops vectorise twice as wide), picked at run time by the CPU. Not under
// ThreadSanitizer: the clones' resolver runs while the program is loaded,
// before the sanitizer's runtime, and its instrumented code crashes there.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
bool clean_fastq_record(std::string_view header, std::string_view sequence,
                        std::string_view plus, std::string_view quality) {
  return clean_header(header) && clean_fastq_line(sequence) && all_sequence_chars(sequence) &&
         clean_plus_line(plus, header) && clean_quality(quality, sequence);
}

}  // namespace

BlockRecordReader::BlockRecordReader(const RecordBlock& block, RecordViewStorage& storage)
    : block_(block),
      storage_(storage),
      begin_(block.bytes.data()),
      pos_(block.bytes.data()),
      end_(block.bytes.data() + block.bytes.size()),
      scanner_(block.bytes.data(), block.bytes.size()) {
  storage_.clear();
  // What the fast path does not read: blocks that end in an error (the
  // reader throws it where its bytes run out) or whose format is unknown.
  fast_ = !block.read_error && !block.cut_inside_line &&
          (block.format == Format::fastq || block.format == Format::fasta);
}

inline bool BlockRecordReader::line_at(const char* from, std::string_view& line, const char*& after) {
  const std::size_t newline = scanner_.find(std::size_t(from - begin_));
  if (newline == NewlineScanner::npos) return false;  // the last line has no '\n'
  std::size_t length = std::size_t(begin_ + newline - from);
  if (length > 0 && from[length - 1] == '\r') --length;
  line = {from, length};
  after = begin_ + newline + 1;
  return true;
}

bool BlockRecordReader::next(RecordView& record) {
  if (fast_) {
    if (pos_ == end_) return false;
    if (block_.format == Format::fastq ? next_fastq(record) : next_fasta(record)) {
      record.number = block_.first_record + returned_++;
      return true;
    }
    fast_ = false;  // from here on SequenceReader reads
  }
  return next_from_reference(record);
}

bool BlockRecordReader::next_fastq(RecordView& record) {
  std::string_view header, sequence, plus, quality;
  const char* at = pos_;
  if (!line_at(at, header, at) || header.empty() || header[0] != '@') return false;
  header.remove_prefix(1);
  if (!line_at(at, sequence, at) || !line_at(at, plus, at) || !line_at(at, quality, at))
    return false;
  if (!clean_fastq_record(header, sequence, plus, quality)) return false;
  record.header = header;
  record.sequence = sequence;
  record.quality = quality;
  pos_ = at;
  return true;
}

bool BlockRecordReader::next_fasta(RecordView& record) {
  std::string_view header, line, sequence;
  const char* at = pos_;
  if (!line_at(at, header, at) || header.empty() || header[0] != '>') return false;
  header.remove_prefix(1);
  if (!clean_header(header)) return false;
  std::size_t lines = 0;
  std::size_t joined_from = 0;  // where this record's bases start in storage_.joined_
  while (at != end_) {
    const char* after = nullptr;
    if (!line_at(at, line, after)) return false;
    if (!line.empty() && line[0] == '>') break;  // the next record's header
    if (!all_sequence_chars(line)) return false;
    at = after;
    if (line.empty()) continue;  // blank lines are not data
    if (++lines == 1) {
      sequence = line;
      continue;
    }
    std::string& joined = storage_.joined_;
    if (lines == 2) {
      // The joined bases of the whole block fit in its size: reserved once,
      // the views into it stay valid.
      if (joined.capacity() < block_.bytes.size()) joined.reserve(block_.bytes.size());
      joined_from = joined.size();
      joined.append(sequence);
    }
    joined.append(line);
    sequence = std::string_view(joined).substr(joined_from);
  }
  record.header = header;
  record.sequence = sequence;
  record.quality = {};
  pos_ = at;
  return true;
}

bool BlockRecordReader::next_from_reference(RecordView& record) {
  if (!reference_) {
    // From the block's start, past the records already returned: they
    // passed every check on the way, so the reader takes them as they were.
    reference_.emplace(block_);
    SequenceRecord skipped;
    for (std::uint64_t i = 0; i < returned_; ++i)
      if (!reference_->next(skipped))
        throw std::logic_error("record views: the block's reader ended before the fast path");
  }
  SequenceRecord& parsed = storage_.parsed_.emplace_back();
  if (!reference_->next(parsed)) {
    storage_.parsed_.pop_back();
    return false;
  }
  record.header = parsed.header;
  record.sequence = parsed.sequence;
  record.quality = parsed.quality;
  record.number = parsed.number;
  ++returned_;
  return true;
}

}  // namespace metawarp::io
