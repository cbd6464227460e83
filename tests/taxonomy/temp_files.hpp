#pragma once
// Test helpers: a temporary folder (scratch_dir.hpp), and writing text
// files plain or gzip-compressed (one member, or members to concatenate).
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "scratch_dir.hpp"

namespace metawarp::test {

using TempDir = ScratchDir;

inline void write_text(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), std::streamsize(text.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

inline void write_gz(const std::filesystem::path& path, std::string_view text) {
  gzFile f = gzopen(path.string().c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + path.string());
  if (!text.empty()) gzwrite(f, text.data(), unsigned(text.size()));
  gzclose(f);
}

// The bytes of one gzip member holding `text`, to put several in one file.
inline std::string gz_member(std::string_view text) {
  z_stream stream{};
  if (deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("deflateInit2 failed");
  std::string out(deflateBound(&stream, uLong(text.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = uInt(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = uInt(out.size());
  const int status = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (status != Z_STREAM_END) throw std::runtime_error("deflate failed");
  return out;
}

// "id\t|\tparent\t|\trank\t|\t...": a nodes.dmp line with NCBI's extra columns.
inline std::string nodes_line(unsigned id, unsigned parent, std::string_view rank) {
  return std::to_string(id) + "\t|\t" + std::to_string(parent) + "\t|\t" + std::string(rank) +
         "\t|\t\t|\t0\t|\t1\t|\t11\t|\t1\t|\t0\t|\t1\t|\t0\t|\t0\t|\t\t|\n";
}

inline std::string names_line(unsigned id, std::string_view name, std::string_view name_class) {
  return std::to_string(id) + "\t|\t" + std::string(name) + "\t|\t\t|\t" +
         std::string(name_class) + "\t|\n";
}

inline std::string merged_line(unsigned old_id, unsigned new_id) {
  return std::to_string(old_id) + "\t|\t" + std::to_string(new_id) + "\t|\n";
}

}  // namespace metawarp::test
