// Decompression throughput of one compressed file through each decoder, in
// uncompressed MB/s: zlib on one core (the reference line), ISA-L on one
// core, ISA-L on a thread of its own (read-ahead: what the query's cutter
// sees), then the parallel gzip path for each thread count given (BGZF
// member by member; an ordinary single-member file in pieces from block
// boundaries found by search; 1 thread: the serial decoder), and the default
// path of open_byte_source with the first thread count given.
// Each line reads the whole file once through io::open_byte_source's
// decoders and checks that every decoder gave the same number of bytes.
// Then, for each thread count of 2 or more, the pieces path itself (an
// ordinary member decoded in pieces whatever ChunkedGzipSettings::min_threads
// says) with the CPU time of each of its stages: MB of output per
// CPU-second of the block search, the decode, the serial link (which
// resolves the window bytes), the CRC-32, delivery and the reader's copy
// out, and of the whole process.
//
//   bench_inflate FILE [THREADS[,THREADS...]] [REPEATS [PIECE_MIB]]
// PIECE_MIB: compressed MiB per piece on the pieces lines (default: the
// application's, ChunkedGzipSettings::chunk).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "io/decode/byte_source.hpp"
#include "io/decode/compressed_input.hpp"
#include "io/decode/decoders.hpp"
#include "io/decode/deflate_stage_clock.hpp"
#include "io/decode/file_source.hpp"

using namespace metawarp::io;

namespace {

struct Result {
  double seconds = 0, cpu = 0;  // wall, and process CPU (user + system)
  std::uint64_t bytes = 0;
};

double process_cpu_seconds();

Result run(const std::string& path, const DecodeOptions& options) {
  const double cpu_before = process_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  Result result;
  {
    auto source = open_byte_source(path, options);
    std::vector<char> buffer(std::size_t{1} << 20);
    while (const std::size_t n = source->read(buffer.data(), buffer.size())) result.bytes += n;
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.cpu = process_cpu_seconds() - cpu_before;
  return result;
}

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// One run of the pieces path: wall and process CPU seconds, its counters.
struct PiecesRun {
  double wall = 0, cpu = 0;
  std::uint64_t bytes = 0, reader_ns = 0;
  std::uint64_t search_ns = 0, decode_ns = 0, link_ns = 0, check_ns = 0, deliver_ns = 0;
  std::uint64_t parallel_bytes = 0, fallbacks = 0, window_copies = 0, window_copy_bytes = 0;
};

PiecesRun run_pieces_once(const std::string& path, unsigned threads, std::size_t piece_bytes) {
  ChunkedGzipStats stats;
  ChunkedGzipSettings settings;
  if (piece_bytes > 0) settings.chunk = piece_bytes;
  settings.min_threads = 2;
  settings.stats = &stats;
  PiecesRun run;
  const double cpu_before = process_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  {
    auto source = make_parallel_gzip_source(CompressedInput(std::make_unique<FileSource>(path), "", "gzip"),
                                            threads, DecodeOptions::Gzip::fastest, settings);
    std::vector<char> buffer(std::size_t{1} << 20);
    for (;;) {
      const std::uint64_t before = thread_cpu_ns();
      const std::size_t n = source->read(buffer.data(), buffer.size());
      run.reader_ns += thread_cpu_ns() - before;
      if (n == 0) break;
      run.bytes += n;
    }
  }
  run.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.cpu = process_cpu_seconds() - cpu_before;
  run.search_ns = stats.search_ns;
  run.decode_ns = stats.decode_ns;
  run.link_ns = stats.link_ns;
  run.check_ns = stats.check_ns;
  run.deliver_ns = stats.deliver_ns;
  run.parallel_bytes = stats.parallel_bytes;
  run.fallbacks = stats.fallbacks;
  run.window_copies = stats.window_copies;
  run.window_copy_bytes = stats.window_copy_bytes;
  return run;
}

// The pieces path on `threads` threads, the run of least process CPU time of
// `repeats` (on a shared machine: the least disturbed), with its per-stage
// CPU time.
void run_pieces(const std::string& path, unsigned threads, std::uint64_t reference_bytes, int repeats,
                std::size_t piece_bytes) {
  PiecesRun best;
  for (int i = 0; i < repeats; ++i) {
    const PiecesRun run = run_pieces_once(path, threads, piece_bytes);
    if (run.bytes != reference_bytes) {
      std::fprintf(stderr, "pieces, %u threads: %llu bytes, zlib gave %llu\n", threads,
                   static_cast<unsigned long long>(run.bytes), static_cast<unsigned long long>(reference_bytes));
      std::exit(1);
    }
    if (i == 0 || run.cpu < best.cpu) best = run;
  }
  const double mb = best.bytes / 1e6;
  const auto rate = [&](std::uint64_t ns) { return ns == 0 ? 0.0 : mb / (ns / 1e9); };
  std::printf("pieces, %2u threads: %.3f s wall, %.3f CPU-s: %.1f MB/s, %.1f MB per CPU-s; %.1f%% of the output in "
              "pieces, %llu fallbacks\n",
              threads, best.wall, best.cpu, mb / best.wall, mb / best.cpu, 100.0 * best.parallel_bytes / best.bytes,
              static_cast<unsigned long long>(best.fallbacks));
  const std::pair<const char*, std::uint64_t> stages[] = {
      {"search", best.search_ns}, {"decode", best.decode_ns},   {"link+resolve", best.link_ns},
      {"crc", best.check_ns},     {"deliver", best.deliver_ns}, {"reader copy", best.reader_ns}};
  std::printf("  stage CPU-s (MB of output per CPU-s):");
  for (const auto& [name, ns] : stages) std::printf("  %s %.3f (%.0f)", name, ns / 1e9, rate(ns));
  std::printf("\n  window copies replayed: %llu, %.1f%% of the output\n",
              static_cast<unsigned long long>(best.window_copies), 100.0 * best.window_copy_bytes / best.bytes);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_inflate FILE [THREADS[,THREADS...]] [REPEATS [PIECE_MIB]]\n");
    return 2;
  }
  const std::string path = argv[1];
  std::vector<unsigned> thread_counts;
  if (argc > 2) {
    std::stringstream list(argv[2]);
    for (std::string item; std::getline(list, item, ',');) thread_counts.push_back(static_cast<unsigned>(std::atoi(item.c_str())));
  }
  if (thread_counts.empty()) thread_counts.push_back(default_decode_threads());
  const unsigned threads = thread_counts.front();
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 3;
  // The pieces lines' compressed bytes per piece (0: ChunkedGzipSettings' default).
  const std::size_t piece_bytes = argc > 4 ? static_cast<std::size_t>(std::atof(argv[4]) * (1 << 20)) : 0;
  using G = DecodeOptions::Gzip;
  struct Line {
    const char* name;
    DecodeOptions options;
  };
  std::vector<std::string> names = {"zlib, 1 core (reference)", "isa-l, 1 core", "isa-l, read-ahead thread"};
  std::vector<Line> lines = {
      {nullptr, {G::zlib, 1, false}},
      {nullptr, {G::isal, 1, false}},
      {nullptr, {G::isal, 1, true}},
  };
  for (const unsigned t : thread_counts) {
    names.push_back("parallel, " + std::to_string(t) + " thread" + (t == 1 ? "" : "s"));
    lines.push_back({nullptr, {G::fastest, t, false}});
  }
  names.push_back("default (open_byte_source, " + std::to_string(threads) + ")");
  lines.push_back({nullptr, {G::fastest, threads, true}});
  for (std::size_t i = 0; i < lines.size(); ++i) lines[i].name = names[i].c_str();
  std::printf("file %s, threads %s, best of %d\n", path.c_str(), argc > 2 ? argv[2] : "default", repeats);
  std::fflush(stdout);
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
      std::printf("%-32s %8.1f MB/s uncompressed  (%.2fx zlib, %.3f s, %.1f MB per CPU-s, %llu bytes)\n",
                  line.name, rate, rate / reference_rate, best.seconds, best.bytes / best.cpu / 1e6,
                  static_cast<unsigned long long>(best.bytes));
      std::fflush(stdout);
    }
    for (const unsigned t : thread_counts)
      if (t >= 2) run_pieces(path, t, reference_bytes, repeats, piece_bytes);
  } catch (const SourceError& error) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), error.what());
    return 1;
  }
  return 0;
}
