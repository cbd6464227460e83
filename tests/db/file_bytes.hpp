#pragma once
// A database file as bytes, for the tests that damage or rewrite one.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "db/checksum.hpp"
#include "db/file_format.hpp"

namespace metawarp::db::test {

// The file format's layout, by the short name the file tests use.
namespace ff = file_format;

inline std::vector<char> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& p, const std::vector<char>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// The file as format version 1 wrote it: the same layout, one checksum64 per
// section.
inline std::vector<char> as_version_1(std::vector<char> bytes) {
  const auto u64_at = [&bytes](std::size_t at) {
    std::uint64_t v;
    std::memcpy(&v, bytes.data() + at, 8);
    return v;
  };
  const std::uint32_t version = 1;
  std::memcpy(bytes.data() + 4, &version, 4);
  for (std::size_t s = 0; s < ff::section_count; ++s) {
    const std::size_t entry = ff::fixed_header_bytes + ff::section_entry_bytes * s;
    const std::uint64_t sum = checksum64(bytes.data() + u64_at(entry + 8), u64_at(entry + 16));
    std::memcpy(bytes.data() + entry + 32, &sum, 8);
  }
  const std::uint64_t header = checksum64(bytes.data(), ff::header_bytes - 8);
  std::memcpy(bytes.data() + ff::header_bytes - 8, &header, 8);
  return bytes;
}

}  // namespace metawarp::db::test
