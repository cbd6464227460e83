#include "io/sequence_reader.hpp"

#include <string>
#include <utility>

#include "io/byte_source.hpp"
#include "io/line_reader.hpp"
#include "io/text_checks.hpp"

namespace metawarp::io {
namespace {

std::string error_text(const std::string& file, std::uint64_t record, const std::string& problem) {
  if (record == 0) return file + ": " + problem;
  return file + ": record " + std::to_string(record) + ": " + problem;
}

// Quality letters: printable ASCII without the space.
constexpr unsigned char first_letter = 0x21;
constexpr unsigned char last_letter = 0x7e;

}  // namespace

InputError::InputError(std::string file, std::uint64_t record, const std::string& problem)
    : std::runtime_error(error_text(file, record, problem)), file_(std::move(file)), record_(record) {}

std::string_view SequenceRecord::id() const {
  const std::string_view text = header;
  return text.substr(0, text.find_first_of(" \t"));
}

struct SequenceReader::Impl {
  std::string path;
  std::string display_name;  // what errors call the input
  std::unique_ptr<LineReader> lines;
  Format format = Format::unknown;
  std::uint64_t records_read = 0;
  std::string pending_header;  // header line already read, without '>' / '@'
  bool has_pending_header = false;

  explicit Impl(const std::string& input_path)
      : path(input_path), display_name(input_path == "-" ? "<stdin>" : input_path) {
    try {
      lines = std::make_unique<LineReader>(open_byte_source(path));
    } catch (const SourceError& error) {
      throw InputError(display_name, 0, error.what());
    }
  }

  [[noreturn]] void fail(std::uint64_t record, const std::string& problem) const {
    throw InputError(display_name, record, problem);
  }

  std::string at_line() const { return " (line " + std::to_string(lines->line_number()) + ")"; }

  // The first non-empty line decides the format.
  bool detect_format() {
    std::string_view line;
    do {
      if (!lines->next(line)) return false;  // empty input: zero records
    } while (line.empty());
    if (line[0] == '>') {
      format = Format::fasta;
    } else if (line[0] == '@') {
      format = Format::fastq;
    } else {
      const std::size_t bad = first_byte_outside(line, 0x20, 0x7e);
      if (bad < line.size() && line[bad] != '\t') {
        fail(1, "binary data, not FASTA or FASTQ: " + describe_byte(line[bad]) + at_line());
      }
      fail(1, "missing header: data before the first '>' or '@'" + at_line());
    }
    set_pending_header(line.substr(1), 1);
    return true;
  }

  void check_header(std::string_view header, std::uint64_t record) const {
    // Tabs and non-ASCII (UTF-8) text are fine in a description; control bytes are not.
    if (all_bytes_in(header, 0x20, 0xff)) return;
    for (const char c : header) {
      const auto value = static_cast<unsigned char>(c);
      if (value < 0x20 && c != '\t') fail(record, "invalid " + describe_byte(c) + " in header" + at_line());
    }
  }

  void set_pending_header(std::string_view header, std::uint64_t record) {
    check_header(header, record);
    pending_header.assign(header);
    has_pending_header = true;
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

  bool next_fasta(SequenceRecord& record) {
    if (!has_pending_header) return false;
    record.number = records_read + 1;
    record.header.swap(pending_header);
    has_pending_header = false;
    record.sequence.clear();
    record.quality.clear();
    std::string_view line;
    while (lines->next(line)) {
      if (line.empty()) continue;
      if (line[0] == '>') {
        set_pending_header(line.substr(1), record.number + 1);
        break;
      }
      check_bases(line, record.number);
      record.sequence.append(line);
    }
    ++records_read;
    return true;
  }

  bool next_fastq(SequenceRecord& record) {
    record.number = records_read + 1;
    std::string_view line;
    if (has_pending_header) {
      record.header.swap(pending_header);
      has_pending_header = false;
    } else {
      do {
        if (!lines->next(line)) return false;
      } while (line.empty());
      if (line[0] != '@') {
        fail(record.number, "expected '@' at the start of a FASTQ record, found " +
                                describe_byte(line[0]) + at_line());
      }
      check_header(line.substr(1), record.number);
      record.header.assign(line.substr(1));
    }

    if (!lines->next(line)) fail(record.number, "truncated record: sequence line missing");
    check_bases(line, record.number);
    record.sequence.assign(line);

    if (!lines->next(line)) fail(record.number, "truncated record: '+' line missing");
    if (line.empty() || line[0] != '+') {
      fail(record.number, "expected '+' line, found " +
                              (line.empty() ? std::string("an empty line") : describe_byte(line[0])) +
                              at_line());
    }
    const std::string_view repeated = line.substr(1);
    if (!repeated.empty() && repeated != record.header && repeated != record.id()) {
      fail(record.number, "'+' line does not repeat the header" + at_line());
    }

    if (!lines->next(line)) fail(record.number, "truncated record: quality line missing");
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
      if (format == Format::unknown && !detect_format()) return false;
      return format == Format::fasta ? next_fasta(record) : next_fastq(record);
    } catch (const SourceError& error) {
      fail(records_read + 1, error.what());
    }
  }
};

SequenceReader::SequenceReader(const std::string& path) : impl_(std::make_unique<Impl>(path)) {}
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
