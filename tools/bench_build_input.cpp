// The GPU build's host side alone: the references read in target-id order
// (pipeline::for_each_record_in_order, as `metawarp build` reads them) and
// their bases packed into 64 MiB batches, without a GPU, beside the host's
// limits, so that what bounds the build's read+sketch stage shows.
//   bench_build_input [--threads T] [--copiers C[,C2...]] [--default-malloc] FILE_OR_DIR...
// --default-malloc: glibc's allocator settings instead of metawarp's (host/freed_memory.hpp).
// Rows (GB/s of uncompressed input; 1 GB = 1e9 bytes), each run twice, the best kept:
//   read(2) of every file by T threads      the page cache's rate (the limit of any parse)
//   memcpy, 1 and C threads                  the memory's rate for the packing copies
//   parse, records dropped                   the ordered reader alone
//   parse + pack on the driver thread        the build before issue 28's packing pool
//   parse + pack by C copy threads           the build with it (host::CopyPool), for each C
// Defaults: T = all cores, C = T / 4 (the build's rule, pipeline::gpu::copy_threads).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "io/parse/sequence_reader.hpp"
#include "metawarp/host/copy_pool.hpp"
#include "metawarp/host/freed_memory.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "pipeline/build/ordered_reader.hpp"

namespace {

using namespace metawarp;

constexpr std::size_t batch_bytes = std::size_t(64) << 20;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::uint64_t read_all(const std::vector<std::string>& files, unsigned threads) {
  std::vector<std::uint64_t> bytes(files.size());
  host::parallel_for(files.size(), threads, [&](std::size_t i) {
    const int fd = ::open(files[i].c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    std::vector<char> buffer(std::size_t(1) << 20);
    ssize_t n;
    while ((n = ::read(fd, buffer.data(), buffer.size())) > 0) bytes[i] += std::uint64_t(n);
    ::close(fd);
  });
  std::uint64_t total = 0;
  for (auto b : bytes) total += b;
  return total;
}

double memcpy_gbps(unsigned threads) {
  std::vector<std::vector<char>> from(threads), to(threads);
  for (unsigned t = 0; t < threads; ++t) {
    from[t].assign(batch_bytes, 'A');
    to[t].assign(batch_bytes, 'C');
  }
  const auto start = std::chrono::steady_clock::now();
  host::parallel_for(threads, threads, [&](std::size_t t) {
    for (int i = 0; i < 8; ++i) std::memcpy(to[t].data(), from[t].data(), batch_bytes);
  });
  return 8.0 * threads * double(batch_bytes) / 1e9 / seconds_since(start);
}

// The ordered reader with `consume` on the driver thread; GB/s of input.
template <class Consume>
double parse_gbps(const std::vector<std::string>& files, unsigned threads, Consume consume) {
  double best = 0;
  for (int run = 0; run < 2; ++run) {
    pipeline::ReadCounters counters;
    const auto start = std::chrono::steady_clock::now();
    pipeline::for_each_record_in_order(files, threads, counters,
                                       [&](io::SequenceRecord& r, std::size_t) { consume(r); });
    best = std::max(best, double(counters.bytes.load()) / 1e9 / seconds_since(start));
  }
  return best;
}

// Two batches, filled in turn, as the GPU executor fills its two slots.
struct Batches {
  std::vector<char> bytes[2]{std::vector<char>(batch_bytes), std::vector<char>(batch_bytes)};
  host::CopyGroup copies[2];
  std::size_t used = 0;
  int side = 0;
  template <class Copy>
  void pack(const std::string& sequence, Copy copy) {
    for (std::size_t at = 0; at < sequence.size();) {
      if (used == batch_bytes) {
        side ^= 1;
        copies[side].wait();
        used = 0;
      }
      const std::size_t n = std::min(batch_bytes - used, sequence.size() - at);
      copy(sequence.data() + at, bytes[side].data() + used, n, copies[side]);
      used += n;
      at += n;
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<unsigned> copiers;
  std::vector<std::string> args;
  bool default_malloc = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--default-malloc") default_malloc = true;
    else if (a == "--threads" && i + 1 < argc) threads = unsigned(std::stoul(argv[++i]));
    else if (a == "--copiers" && i + 1 < argc) {
      const std::string list = argv[++i];
      for (std::size_t at = 0; at < list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        copiers.push_back(unsigned(std::stoul(list.substr(at, comma - at))));
        at = comma + 1;
      }
    }
    else args.push_back(a);
  }
  // As metawarp does (host/freed_memory.hpp); --default-malloc: glibc's defaults, to compare.
  if (!default_malloc) host::keep_freed_memory();
  if (copiers.empty()) copiers.push_back(std::max(1u, threads / 4));
  // The files `metawarp build` reads: directories expanded to their sequence files, sorted.
  const std::vector<std::string> files = io::expand_inputs(args);
  if (files.empty()) {
    std::fprintf(stderr,
                 "usage: bench_build_input [--threads T] [--copiers C] [--default-malloc] "
                 "FILE_OR_DIR...\n");
    return 2;
  }
  std::printf("%zu files, %u threads\n", files.size(), threads);
  double read = 0;
  std::uint64_t bytes = 0;
  for (int run = 0; run < 2; ++run) {
    const auto start = std::chrono::steady_clock::now();
    bytes = read_all(files, threads);
    read = std::max(read, double(bytes) / 1e9 / seconds_since(start));
  }
  std::printf("read(2) by %u threads        %7.2f GB/s (%.2f GB on disk)\n", threads, read,
              double(bytes) / 1e9);
  std::printf("memcpy, 1 thread             %7.2f GB/s\n", memcpy_gbps(1));
  for (const unsigned c : copiers)
    std::printf("memcpy, %2u threads          %7.2f GB/s\n", c, memcpy_gbps(c));
  std::printf("parse, records dropped       %7.2f GB/s\n",
              parse_gbps(files, threads, [](io::SequenceRecord&) {}));
  {
    Batches batches;
    std::printf("parse + pack on the driver   %7.2f GB/s\n",
                parse_gbps(files, threads, [&](io::SequenceRecord& r) {
                  const std::string sequence = std::move(r.sequence);  // freed here, as add() does
                  batches.pack(sequence, [](const char* f, char* t, std::size_t n, host::CopyGroup&) {
                    std::memcpy(t, f, n);
                  });
                }));
  }
  for (const unsigned c : copiers) {
    host::CopyPool pool(c);
    Batches batches;
    const double gbps = parse_gbps(files, threads, [&](io::SequenceRecord& r) {
      auto sequence = std::make_shared<const std::string>(std::move(r.sequence));
      batches.pack(*sequence, [&](const char* f, char* t, std::size_t n, host::CopyGroup& g) {
        pool.copy(g, sequence, f, t, n);
      });
    });
    batches.copies[0].wait();
    batches.copies[1].wait();
    std::printf("parse + pack by %2u copiers  %7.2f GB/s\n", c, gbps);
  }
  return 0;
}
