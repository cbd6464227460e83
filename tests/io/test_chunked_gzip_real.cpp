// Real FASTQ files (the shared data's reads/*/*.gz, where present; exit 77
// where absent) through the single-member parallel gzip path on 2 and 4
// threads: zlib's bytes, and the big ordinary members really decoded in
// parallel.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "catch.hpp"
#include "chunked_gzip_support.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

TEST_CASE("real FASTQ .gz files decoded in pieces give zlib's bytes", "[io][gzip]") {
  const char* root = std::getenv("METAWARP_SHARED_DATA");
  const std::filesystem::path reads = std::filesystem::path(root ? root : "") / "reads";
  std::error_code error;
  if (!root || !std::filesystem::is_directory(reads, error)) std::exit(77);
  int files = 0;
  for (const auto& folder : std::filesystem::directory_iterator(reads)) {
    if (!folder.is_directory()) continue;
    for (const auto& entry : std::filesystem::directory_iterator(folder.path())) {
      const std::string name = entry.path().filename().string();
      if (name.find("fastq.gz") == std::string::npos && name.find("fq.gz") == std::string::npos) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream content;
      content << in.rdbuf();
      const std::string file = content.str();
      const Decoded reference = decode_zlib(file);
      for (const unsigned threads : {2u, 4u}) {
        INFO(entry.path() << " on " << threads << " threads");
        ChunkedGzipStats stats;
        const Decoded decoded = decode_chunked(file, threads, small_pieces(&stats, 256 << 10));
        CHECK(decoded == reference);
        if (file.size() > (std::size_t{1} << 20)) {
          // gzip-written reads: most of the text comes from the parallel path.
          CHECK(stats.members >= 1);
          CHECK(stats.parallel_bytes * 2 > reference.bytes.size());
        }
      }
      ++files;
    }
  }
  if (files == 0) std::exit(77);
}
