#include "io/parse/sequence_reader.hpp"

#include <string>
#include <utility>

#include "io/cut/line_limits.hpp"
#include "io/cut/record_blocks.hpp"
#include "io/cut/text_checks.hpp"
#include "io/decode/byte_source.hpp"
#include "io/parse/fasta_lines.hpp"
#include "io/parse/line_reader.hpp"

namespace metawarp::io {
namespace {

// Quality letters: printable ASCII without the space.
constexpr unsigned char first_letter = 0x21;
constexpr unsigned char last_letter = 0x7e;

}  // namespace

std::string_view SequenceRecord::id() const {
  return header_id(header);
}

struct SequenceReader::Impl {
  std::string path;
  std::string display_name;  // what errors call the input
  std::unique_ptr<LineReader> lines;
  Format format = Format::unknown;
  std::uint64_t records_read = 0;  // a block's count starts with the records before it
  bool started = false;            // the first header was looked for
  // Header line already read, without '>' / '@'. It is checked when its record
  // is returned, not when it is read at the end of the previous record, so a
  // bad header fails the same next() call whether or not a block ends before it.
  std::string pending_header;
  std::uint64_t pending_header_line = 0;
  bool has_pending_header = false;

  explicit Impl(const std::string& input_path)
      : path(input_path), display_name(input_display_name(input_path)) {
    try {
      lines = std::make_unique<LineReader>(open_byte_source(path));
    } catch (const SourceError& error) {
      throw InputError(display_name, 0, error.what());
    }
  }

  Impl(std::unique_ptr<ByteSource> source, std::string name)
      : path(name),
        display_name(std::move(name)),
        lines(std::make_unique<LineReader>(std::move(source))) {}

  explicit Impl(const RecordBlock& block)
      : path(block.display_name),
        display_name(block.display_name),
        lines(std::make_unique<LineReader>(block.bytes.view(), block.first_line - 1,
                                           block.read_error, block.cut_inside_line)),
        format(block.format),
        records_read(block.first_record - 1) {}

  [[noreturn]] void fail(std::uint64_t record, const std::string& problem) const {
    throw InputError(display_name, record, problem);
  }

  static std::string at_line(std::uint64_t line) { return " (line " + std::to_string(line) + ")"; }
  std::string at_line() const { return at_line(lines->line_number()); }

  // Reads up to the first header. The first non-blank byte decides the
  // format of a whole input; a block knows its format, and a FASTA block
  // starts with its first record's header (a FASTQ record reads its own header).
  bool read_first_header() {
    if (format == Format::fastq) return true;
    std::string_view line;
    do {
      if (!lines->next(line, LineKind::header)) return false;  // empty input: zero records
    } while (line.empty());
    const std::uint64_t record = records_read + 1;
    if (format == Format::unknown) {
      if (line[0] == '>') format = Format::fasta;
      if (line[0] == '@') format = Format::fastq;
    }
    const char header_start = format == Format::fasta ? '>' : '@';
    if (format == Format::unknown || line[0] != header_start) {
      // Only as much as a header may hold is looked at: a reader stops
      // reading a longer line there.
      const std::string_view start = line.substr(0, max_header_line_bytes + 1);
      const std::size_t bad = first_byte_outside(start, 0x20, 0x7e);
      if (bad < start.size() && start[bad] != '\t') {
        fail(record, "binary data, not FASTA or FASTQ: " + describe_byte(start[bad]) + at_line());
      }
      fail(record, "missing header: data before the first '>' or '@'" + at_line());
    }
    set_pending_header(line.substr(1));
    return true;
  }

  // `header`: the header line without its '>' or '@'.
  void check_header(std::string_view header, std::uint64_t record, std::uint64_t line) const {
    if (header.size() >= max_header_line_bytes) {
      fail(record, "header longer than " + std::to_string(max_header_line_bytes) + " bytes" +
                       at_line(line));
    }
    // Tabs and non-ASCII (UTF-8) text are fine in a description; control bytes are not.
    if (all_bytes_in(header, 0x20, 0xff)) return;
    for (const char c : header) {
      const auto value = static_cast<unsigned char>(c);
      if (value < 0x20 && c != '\t') fail(record, "invalid " + describe_byte(c) + " in header" + at_line(line));
    }
  }

  void set_pending_header(std::string_view header) {
    pending_header.assign(header);
    pending_header_line = lines->line_number();
    has_pending_header = true;
  }

  // Moves the pending header into `record`, checked.
  void take_pending_header(SequenceRecord& record) {
    check_header(pending_header, record.number, pending_header_line);
    record.header.swap(pending_header);
    has_pending_header = false;
  }

  void check_letters(std::string_view text, const char* what, std::uint64_t record) const {
    if (all_bytes_in(text, first_letter, last_letter)) return;
    const char bad = text[first_byte_outside(text, first_letter, last_letter)];
    fail(record, "invalid " + describe_byte(bad) + " in " + what + at_line());
  }

  void check_bases(std::string_view text, std::uint64_t record) const {
    if (all_sequence_chars(text)) return;
    const char bad = text[first_non_sequence_char(text)];
    fail(record, "invalid " + describe_byte(bad) + " in sequence" + at_line());
  }

  // `what`: "sequence", "'+'" or "quality". Apart from the check, so that
  // the check inlines into the loop.
  [[noreturn]] void fail_long_fastq_line(const char* what, std::uint64_t record) const {
    fail(record, std::string(what) + " line longer than " + std::to_string(max_fastq_line_bytes) +
                     " bytes" + at_line());
  }

  // The well-formed sequence lines already read, at once (fasta_lines.hpp);
  // the loop of next_fasta() reads the others, one by one.
  void take_buffered_sequence_lines(std::string& bases) {
    const TakenLines taken = append_fasta_sequence_lines(lines->unread(), bases);
    lines->skip_lines(taken.bytes, taken.lines);
  }

  bool next_fasta(SequenceRecord& record) {
    if (!has_pending_header) return false;
    record.number = records_read + 1;
    take_pending_header(record);
    record.sequence.clear();
    record.quality.clear();
    std::string_view line;
    while (true) {
      take_buffered_sequence_lines(record.sequence);
      if (!lines->next(line, LineKind::fasta_body)) break;
      if (line.empty()) continue;
      if (line[0] == '>') {
        set_pending_header(line.substr(1));
        break;
      }
      const std::size_t checked = lines->checked_bytes();  // <= line.size()
      check_bases({line.data() + checked, line.size() - checked}, record.number);
      record.sequence.append(line);
    }
    ++records_read;
    return true;
  }

  bool next_fastq(SequenceRecord& record) {
    record.number = records_read + 1;
    std::string_view line;
    if (has_pending_header) {
      take_pending_header(record);
    } else {
      do {
        if (!lines->next(line, LineKind::header)) return false;
      } while (line.empty());
      if (line[0] != '@') {
        fail(record.number, "expected '@' at the start of a FASTQ record, found " +
                                describe_byte(line[0]) + at_line());
      }
      check_header(line.substr(1), record.number, lines->line_number());
      record.header.assign(line.substr(1));
    }

    if (!lines->next(line, LineKind::fastq_body))
      fail(record.number, "truncated record: sequence line missing");
    if (line.size() > max_fastq_line_bytes) fail_long_fastq_line("sequence", record.number);
    check_bases(line, record.number);
    record.sequence.assign(line);

    if (!lines->next(line, LineKind::fastq_body))
      fail(record.number, "truncated record: '+' line missing");
    if (line.size() > max_fastq_line_bytes) fail_long_fastq_line("'+'", record.number);
    if (line.empty() || line[0] != '+') {
      fail(record.number, "expected '+' line, found " +
                              (line.empty() ? std::string("an empty line") : describe_byte(line[0])) +
                              at_line());
    }
    const std::string_view repeated = line.substr(1);
    if (!repeated.empty() && repeated != record.header && repeated != record.id()) {
      fail(record.number, "'+' line does not repeat the header" + at_line());
    }

    if (!lines->next(line, LineKind::fastq_body))
      fail(record.number, "truncated record: quality line missing");
    if (line.size() > max_fastq_line_bytes) fail_long_fastq_line("quality", record.number);
    check_letters(line, "quality", record.number);
    if (line.size() != record.sequence.size()) {
      fail(record.number, "quality length " + std::to_string(line.size()) +
                              " differs from sequence length " +
                              std::to_string(record.sequence.size()) + at_line());
    }
    record.quality.assign(line);
    ++records_read;
    return true;
  }

  bool next(SequenceRecord& record) {
    try {
      if (!started) {
        started = true;
        if (!read_first_header()) return false;
      }
      switch (format) {
        case Format::fasta: return next_fasta(record);
        case Format::fastq: return next_fastq(record);
        case Format::unknown: return false;  // empty input
      }
      return false;
    } catch (const SourceError& error) {
      fail(error.after_data() ? 0 : records_read + 1, error.what());
    }
  }
};

SequenceReader::SequenceReader(const std::string& path) : impl_(std::make_unique<Impl>(path)) {}
SequenceReader::SequenceReader(std::unique_ptr<ByteSource> source, std::string display_name)
    : impl_(std::make_unique<Impl>(std::move(source), std::move(display_name))) {}
SequenceReader::SequenceReader(const RecordBlock& block) : impl_(std::make_unique<Impl>(block)) {}
SequenceReader::~SequenceReader() = default;
SequenceReader::SequenceReader(SequenceReader&&) noexcept = default;
SequenceReader& SequenceReader::operator=(SequenceReader&&) noexcept = default;

bool SequenceReader::next(SequenceRecord& record) { return impl_->next(record); }

std::size_t SequenceReader::next_batch(std::vector<SequenceRecord>& out, std::size_t max_records,
                                       std::size_t max_bases) {
  std::size_t appended = 0;
  std::size_t bases = 0;
  while (appended == 0 || (appended < max_records && bases < max_bases)) {
    out.emplace_back();
    if (!next(out.back())) {
      out.pop_back();
      break;
    }
    bases += out.back().sequence.size();
    ++appended;
  }
  return appended;
}

const std::string& SequenceReader::path() const { return impl_->path; }
Format SequenceReader::format() const { return impl_->format; }
std::uint64_t SequenceReader::records_read() const { return impl_->records_read; }
std::uint64_t SequenceReader::bytes_consumed() const { return impl_->lines->bytes_consumed(); }

}  // namespace metawarp::io
