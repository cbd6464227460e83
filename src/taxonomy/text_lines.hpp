#pragma once
// Internal to the taxonomy module: reads a text file, plain or gzip (the
// byte sources of io/decode/byte_source.hpp, so gzip files are handled as the
// sequence readers handle them), line by line over a large buffer, and small
// hand-written parsers for the fields of NCBI dumps and mapping files. No
// iostreams per line: taxonomy dumps have millions of lines.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "io/decode/byte_source.hpp"

namespace metawarp::taxonomy::detail {

class TextLines {
 public:
  static constexpr std::size_t buffer_size = std::size_t{4} << 20;
  // Lines of dumps and maps hold a few ids and names (a few hundred bytes
  // at most); a longer line is an error, so a file without line ends is
  // never buffered whole. Below buffer_size, so the buffer never grows.
  static constexpr std::size_t max_line_bytes = std::size_t{1} << 20;

  // Throws std::runtime_error if the file cannot be opened.
  explicit TextLines(const std::filesystem::path& path);

  // The next line without '\n' and without a trailing '\r'; false at the end.
  // Throws std::runtime_error on read errors, corrupt or truncated gzip
  // streams, data after the end of a gzip stream and lines longer than
  // max_line_bytes.
  bool next(std::string_view& line);

  std::uint64_t line_number() const { return line_number_; }  // of the last line returned
  const std::string& file_name() const { return name_; }       // for messages

  // "file:line: problem" for the last line returned.
  [[noreturn]] void fail(std::string_view problem) const;

 private:
  [[noreturn]] void fail_too_long() const;
  bool refill();

  std::unique_ptr<io::ByteSource> source_;
  std::string name_;
  std::unique_ptr<char[]> buffer_;  // uninitialised: a small file touches few pages
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool at_end_ = false;
  std::uint64_t line_number_ = 0;
};

// A decimal taxid (1..2^32-1), nothing else; nullopt otherwise (0 is NCBI's "none").
std::optional<std::uint32_t> parse_taxid(std::string_view s);

// Splits an NCBI dump line "a\t|\tb\t|\t...\t|" into at most out.size()
// fields; returns how many were found. A missing final "\t|" is tolerated.
std::size_t split_dmp_fields(std::string_view line, std::span<std::string_view> out);

// The first path of `dir/name` and `dir/name.gz` that exists.
std::optional<std::filesystem::path> find_dump(const std::filesystem::path& dir,
                                               std::string_view name);

}  // namespace metawarp::taxonomy::detail
