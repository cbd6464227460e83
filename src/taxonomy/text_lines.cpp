#include "taxonomy/text_lines.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace metawarp::taxonomy::detail {

TextLines::TextLines(const std::filesystem::path& path)
    : name_(path.string()), buffer_(buffer_size) {
  gzFile f = gzopen(name_.c_str(), "rb");
  if (!f) throw std::runtime_error(name_ + ": cannot open: " + std::strerror(errno));
  // zlib's own input buffer; the default 8 KiB costs many small reads.
  gzbuffer(f, 1u << 20);
  file_ = f;
}

TextLines::~TextLines() {
  if (file_) gzclose(static_cast<gzFile>(file_));
}

void TextLines::fail(std::string_view problem) const {
  throw std::runtime_error(name_ + ":" + std::to_string(line_number_) + ": " +
                           std::string(problem));
}

bool TextLines::refill() {
  if (at_end_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);  // a very long line
  auto f = static_cast<gzFile>(file_);
  const auto want = static_cast<unsigned>(buffer_.size() - end_);
  const int got = gzread(f, buffer_.data() + end_, want);
  int err = Z_OK;
  const char* message = gzerror(f, &err);
  if (got < 0 || (err != Z_OK && err != Z_STREAM_END)) {
    // Z_BUF_ERROR here means the gzip stream ended early (truncated file).
    throw std::runtime_error(name_ + ": read error after line " +
                             std::to_string(line_number_) + ": " +
                             (err == Z_BUF_ERROR ? "truncated gzip stream" : message));
  }
  if (got == 0) {
    at_end_ = true;
    return false;
  }
  end_ += std::size_t(got);
  return true;
}

bool TextLines::next(std::string_view& line) {
  std::size_t scanned = begin_;
  for (;;) {
    const char* start = buffer_.data() + scanned;
    if (const void* nl = std::memchr(start, '\n', end_ - scanned)) {
      const std::size_t pos = std::size_t(static_cast<const char*>(nl) - buffer_.data());
      line = std::string_view(buffer_.data() + begin_, pos - begin_);
      begin_ = pos + 1;
      break;
    }
    const std::size_t unscanned_offset = end_ - begin_;
    if (!refill()) {
      if (begin_ == end_) return false;
      line = std::string_view(buffer_.data() + begin_, end_ - begin_);  // no final '\n'
      begin_ = end_;
      break;
    }
    scanned = begin_ + unscanned_offset;  // refill moved the tail to the front
  }
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ++line_number_;
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
