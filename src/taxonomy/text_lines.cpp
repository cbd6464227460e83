#include "taxonomy/text_lines.hpp"

#include <cstring>
#include <stdexcept>

#include "io/cut/line_limits.hpp"
#include "io/decode/byte_source.hpp"

namespace metawarp::taxonomy::detail {

TextLines::TextLines(const std::filesystem::path& path)
    : name_(path.string()), buffer_(std::make_unique_for_overwrite<char[]>(buffer_size)) {
  try {
    source_ = io::open_byte_source(name_);
  } catch (const io::SourceError& error) {
    throw std::runtime_error(name_ + ": " + error.what());
  }
}

void TextLines::fail(std::string_view problem) const {
  throw std::runtime_error(name_ + ":" + std::to_string(line_number_) + ": " +
                           std::string(problem));
}

void TextLines::fail_too_long() const {
  fail("line longer than " + std::to_string(max_line_bytes) + " bytes");
}

bool TextLines::refill() {
  if (at_end_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  std::size_t got = 0;
  try {
    got = source_->read(buffer_.get() + end_, buffer_size - end_);
  } catch (const io::SourceError& error) {
    if (error.after_data()) throw std::runtime_error(name_ + ": " + error.what());
    throw std::runtime_error(name_ + ": read error after line " + std::to_string(line_number_) +
                             ": " + error.what());
  }
  if (got == 0) {
    at_end_ = true;
    return false;
  }
  end_ += got;
  return true;
}

bool TextLines::next(std::string_view& line) {
  std::size_t scanned = begin_;
  for (;;) {
    const char* start = buffer_.get() + scanned;
    if (const void* nl = std::memchr(start, '\n', end_ - scanned)) {
      const std::size_t pos = std::size_t(static_cast<const char*>(nl) - buffer_.get());
      line = std::string_view(buffer_.get() + begin_, pos - begin_);
      begin_ = pos + 1;
      break;
    }
    const std::string_view so_far(buffer_.get() + begin_, end_ - begin_);
    if (io::known_content(so_far).size() > max_line_bytes) {
      ++line_number_;
      fail_too_long();
    }
    const std::size_t unscanned_offset = end_ - begin_;
    if (!refill()) {
      if (begin_ == end_) return false;
      line = std::string_view(buffer_.get() + begin_, end_ - begin_);  // no final '\n'
      begin_ = end_;
      break;
    }
    scanned = begin_ + unscanned_offset;  // refill moved the tail to the front
  }
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ++line_number_;
  if (line.size() > max_line_bytes) fail_too_long();
  return true;
}

std::optional<std::uint32_t> parse_taxid(std::string_view s) {
  if (s.empty() || s.size() > 10) return std::nullopt;
  std::uint64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + std::uint64_t(c - '0');
  }
  if (v == 0 || v > 0xffffffffull) return std::nullopt;
  return std::uint32_t(v);
}

std::size_t split_dmp_fields(std::string_view line, std::span<std::string_view> out) {
  // The separator is "\t|" (plus the "\t" that starts the next field); a '|'
  // with no tab before it is part of a field.
  std::size_t count = 0;
  std::size_t pos = 0;
  while (count < out.size() && pos < line.size()) {
    const std::size_t sep = line.find("\t|", pos);
    if (sep == std::string_view::npos) {
      out[count++] = line.substr(pos);  // tolerated: no final "\t|"
      break;
    }
    out[count++] = line.substr(pos, sep - pos);
    pos = sep + 2;
    if (pos < line.size() && line[pos] == '\t') ++pos;
  }
  return count;
}

std::optional<std::filesystem::path> find_dump(const std::filesystem::path& dir,
                                               std::string_view name) {
  std::error_code ec;
  const auto plain = dir / std::string(name);
  if (std::filesystem::is_regular_file(plain, ec)) return plain;
  const auto gz = dir / (std::string(name) + ".gz");
  if (std::filesystem::is_regular_file(gz, ec)) return gz;
  return std::nullopt;
}

}  // namespace metawarp::taxonomy::detail
