// Decompression throughput of one compressed file through each decoder, in
// uncompressed MB/s: zlib on one core (the reference line), ISA-L on one
// core, ISA-L on a thread of its own (read-ahead: what the query's cutter
// sees), member-parallel decoding with the threads given (BGZF files only;
// other gzip files are decoded serially by it), and the default path of
// open_byte_source with the threads given.
// Each line reads the whole file once through io::open_byte_source's
// decoders and checks that every decoder gave the same number of bytes.
//
//   bench_inflate FILE [THREADS] [REPEATS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "io/byte_source.hpp"

using namespace metawarp::io;

namespace {

struct Result {
  double seconds = 0;
  std::uint64_t bytes = 0;
};

Result run(const std::string& path, const DecodeOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto source = open_byte_source(path, options);
  std::vector<char> buffer(std::size_t{1} << 20);
  Result result;
  while (const std::size_t n = source->read(buffer.data(), buffer.size())) result.bytes += n;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_inflate FILE [THREADS] [REPEATS]\n");
    return 2;
  }
  const std::string path = argv[1];
  const unsigned threads = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : default_decode_threads();
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 3;
  using G = DecodeOptions::Gzip;
  struct Line {
    const char* name;
    DecodeOptions options;
  };
  const std::vector<Line> lines = {
      {"zlib, 1 core (reference)", {G::zlib, 1, false}},
      {"isa-l, 1 core", {G::isal, 1, false}},
      {"isa-l, read-ahead thread", {G::isal, 1, true}},
      {"member-parallel, threads given", {G::fastest, threads, false}},
      {"default (open_byte_source)", {G::fastest, threads, true}},
  };
  std::printf("file %s, threads %u, best of %d\n", path.c_str(), threads, repeats);
  std::uint64_t reference_bytes = 0;
  double reference_rate = 0;
  try {
    for (const Line& line : lines) {
      Result best;
      for (int i = 0; i < repeats; ++i) {
        const Result r = run(path, line.options);
        if (i == 0 || r.seconds < best.seconds) best = r;
      }
      const double rate = best.bytes / best.seconds / 1e6;
      if (reference_bytes == 0) {
        reference_bytes = best.bytes;
        reference_rate = rate;
      } else if (best.bytes != reference_bytes) {
        std::fprintf(stderr, "%s: %llu bytes, zlib gave %llu\n", line.name,
                     static_cast<unsigned long long>(best.bytes),
                     static_cast<unsigned long long>(reference_bytes));
        return 1;
      }
      std::printf("%-32s %8.1f MB/s uncompressed  (%.2fx zlib, %.3f s, %llu bytes)\n", line.name, rate,
                  rate / reference_rate, best.seconds, static_cast<unsigned long long>(best.bytes));
    }
  } catch (const SourceError& error) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), error.what());
    return 1;
  }
  return 0;
}
