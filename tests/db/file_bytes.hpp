#pragma once
// A database file as bytes, for the tests that damage or rewrite one.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace metawarp::db::test {

inline std::vector<char> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& p, const std::vector<char>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

}  // namespace metawarp::db::test
