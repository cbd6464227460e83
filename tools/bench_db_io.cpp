// Database write and load rates next to what the host itself does with the
// same bytes (the physical reference lines).
//
//   bench_db_io [--gigabytes G] [--dir DIR] [--threads N] [--repeat R] [--database FILE]
//               [--keep]
//
// Without --database, a synthetic database of about G GB (default 2) is made
// in memory (random features and locations, valid by every load check) and
// written to DIR (default: the temp directory) by db::save, timed (file
// written, fsynced and renamed: the whole of `build`'s last step). With
// --database, an existing file is loaded instead (nothing is written).
// Then the file, now in the page cache, is loaded R times (default 3) by
// db::load, and the reference lines are measured on the same file:
//   read 1 thread      pread of 1 MiB pieces into one buffer (what `cat` does)
//   read N threads     the same on N threads, each its own part of the file
//   read N fresh       N threads pread into newly allocated memory (page
//                      faults included: what loading into new arrays costs)
//   write 1 / N        the same bytes written by 1 or N threads (pwrite at
//                      offsets), then fsync: the host's own write rate
//   checksum64         the version-1 section checksum on one core (in memory)
//   chunked checksum   the version-2 one on N threads (in memory)
// Rates are GB/s, 1 GB = 1e9 bytes. The files it writes are removed (the
// database is kept with --keep, its path printed).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "db/checksum.hpp"
#include "db/database.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/large_vector.hpp"
#include "metawarp/host/parallel_for.hpp"

namespace {

namespace fs = std::filesystem;
using namespace metawarp;

struct Options {
  double gigabytes = 2;
  fs::path dir = fs::temp_directory_path();
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  int repeat = 3;
  fs::path database;
  bool keep = false;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "bench_db_io: %s\nusage: bench_db_io [--gigabytes G] [--dir DIR] [--threads N] "
               "[--repeat R] [--database FILE] [--keep]\n",
               why);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--keep") {
      o.keep = true;
      continue;
    }
    if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
    const char* value = argv[++i];
    if (arg == "--gigabytes") o.gigabytes = std::atof(value);
    else if (arg == "--dir") o.dir = value;
    else if (arg == "--threads") o.threads = unsigned(std::max(1, std::atoi(value)));
    else if (arg == "--repeat") o.repeat = std::max(1, std::atoi(value));
    else if (arg == "--database") o.database = value;
    else usage(("unknown option " + arg).c_str());
  }
  if (o.gigabytes <= 0) usage("--gigabytes must be positive");
  return o;
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// About `bytes` bytes of index: 4 locations per feature on average (44 bytes).
db::Database synthetic_database(std::uint64_t bytes) {
  constexpr std::uint32_t targets = 1000, windows = 1u << 20;
  db::Database d;
  d.params.sketch = sketch::SketchParams{16, 128, 16};
  d.taxonomy = taxonomy::Taxonomy::from_nodes({{1, 1, taxonomy::Rank::root, "root"}}, {});
  for (std::uint32_t t = 0; t < targets; ++t) {
    db::Target target;
    target.name = target.accession = "target" + std::to_string(t);
    target.taxid = 1;
    target.windows = windows;
    target.length = std::uint64_t(windows) * 113;
    target.source_file = "synthetic.fna";
    d.targets.push_back(target);
  }
  const std::size_t features = std::min<std::uint64_t>(bytes / 44, 0xfffffff0ull);
  const std::uint64_t stride = std::max<std::uint64_t>(1, (std::uint64_t(1) << 32) / (features + 1));
  auto f = host::make_uninitialized_large_vector<db::feature_t>(features);
  auto offsets = host::make_uninitialized_large_vector<std::uint64_t>(features + 1);
  const auto count = [](std::size_t i) { return 1 + mix(i) % 7; };
  offsets[0] = 0;
  for (std::size_t i = 0; i < features; ++i) offsets[i + 1] = offsets[i] + count(i);
  auto locations = host::make_uninitialized_large_vector<db::Location>(offsets[features]);
  host::parallel_ranges(features, host::parts_for(features, 1 << 16),
                        [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t h = mix(i ^ 0x5555);
      f[i] = db::feature_t(i * stride + h % stride);
      const std::uint32_t first = std::uint32_t(h % (targets - 8));
      for (std::uint64_t j = offsets[i]; j < offsets[i + 1]; ++j)
        locations[j] = db::Location{first + std::uint32_t(j - offsets[i]),
                                    std::uint32_t(mix(j) % windows)};
    }
  });
  d.index = db::FeatureIndex(std::move(f), std::move(offsets), std::move(locations));
  return d;
}

double gb_per_s(std::uint64_t bytes, double seconds) { return double(bytes) / 1e9 / seconds; }

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

// pread of the whole file by `threads` threads into 1 MiB buffers of their
// own, or (fresh) into new memory for the whole file.
double read_reference(const fs::path& path, std::uint64_t size, unsigned threads, bool fresh) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  check(fd >= 0, "open");
  constexpr std::size_t piece = std::size_t(1) << 20;
  // Not touched, on huge pages where allowed, as load() allocates: the reads fault it in.
  auto memory = host::make_uninitialized_large_vector<char>(fresh ? size : 0);
  const auto start = std::chrono::steady_clock::now();
  std::atomic<bool> failed{false};
  host::parallel_ranges((size + piece - 1) / piece, threads, [&](std::size_t first, std::size_t last) {
    std::vector<char> buffer(fresh ? 0 : piece);
    for (std::size_t p = first; p < last; ++p) {
      const std::size_t n = std::min<std::uint64_t>(piece, size - p * piece);
      char* dst = fresh ? memory.data() + p * piece : buffer.data();
      if (::pread(fd, dst, n, off_t(p * piece)) != ssize_t(n)) failed = true;
    }
  });
  const double seconds = host::seconds_since(start);
  ::close(fd);
  if (failed) throw std::runtime_error("reference read failed");
  return seconds;
}

// The index's arrays written to `path` by `threads` threads, then fsynced.
double write_reference(const fs::path& path, const db::FeatureIndex& index, unsigned threads) {
  struct Part {
    const char* data;
    std::uint64_t bytes;
  };
  const Part parts[] = {
      {reinterpret_cast<const char*>(index.features().data()), index.features().size() * 4},
      {reinterpret_cast<const char*>(index.offsets().data()), index.offsets().size() * 8},
      {reinterpret_cast<const char*>(index.locations().data()), index.locations().size() * 8}};
  const auto start = std::chrono::steady_clock::now();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  check(fd >= 0, "open for writing");
  constexpr std::size_t piece = std::size_t(1) << 20;
  std::uint64_t offset = 0;
  std::atomic<bool> failed{false};
  for (const Part& part : parts) {
    host::parallel_ranges((part.bytes + piece - 1) / piece, threads,
                          [&](std::size_t first, std::size_t last) {
      for (std::size_t p = first; p < last; ++p) {
        const std::size_t n = std::min<std::uint64_t>(piece, part.bytes - p * piece);
        if (::pwrite(fd, part.data + p * piece, n, off_t(offset + p * piece)) != ssize_t(n))
          failed = true;
      }
    });
    offset += part.bytes;
  }
  check(::fsync(fd) == 0, "fsync");
  ::close(fd);
  const double seconds = host::seconds_since(start);
  fs::remove(path);
  if (failed) throw std::runtime_error("reference write failed");
  return seconds;
}

double best_of(int runs, const auto& f) {
  double best = 1e300;
  for (int r = 0; r < runs; ++r) best = std::min(best, f());
  return best;
}

int run(const Options& o) {
  const unsigned n = o.threads;
  fs::path path = o.database;
  db::Database original;
  const bool synthetic = path.empty();
  if (synthetic) {
    std::printf("making a synthetic database of about %.1f GB ...\n", o.gigabytes);
    original = synthetic_database(std::uint64_t(o.gigabytes * 1e9));
    path = o.dir / ("bench_db_io_" + std::to_string(::getpid()) + ".mwdb");
    const auto start = std::chrono::steady_clock::now();
    db::save(original, path, n);
    const double seconds = host::seconds_since(start);
    const std::uint64_t size = fs::file_size(path);
    std::printf("%-34s %7.2f s  %6.2f GB/s  (%.2f GB, %u threads)\n", "write (db::save, with fsync)",
                seconds, gb_per_s(size, seconds), double(size) / 1e9, n);
    const double w1 = write_reference(o.dir / "bench_db_io_reference", original.index, 1);
    const double wn = write_reference(o.dir / "bench_db_io_reference", original.index, n);
    const std::uint64_t index_bytes = original.index.features().size() * 4 +
                                      original.index.offsets().size() * 8 +
                                      original.index.locations().size() * 8;
    std::printf("%-34s %7.2f s  %6.2f GB/s\n", "reference write 1 thread + fsync", w1,
                gb_per_s(index_bytes, w1));
    std::printf("%-34s %7.2f s  %6.2f GB/s\n",
                ("reference write " + std::to_string(n) + " threads + fsync").c_str(), wn,
                gb_per_s(index_bytes, wn));
  }
  const std::uint64_t size = fs::file_size(path);
  std::vector<double> loads;
  for (int r = 0; r < o.repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    db::Database loaded = db::load(path, n);
    loads.push_back(host::seconds_since(start));
    if (synthetic && r == 0 && !(loaded.index == original.index))
      throw std::runtime_error("the loaded database differs from the one written");
  }
  std::sort(loads.begin(), loads.end());
  std::printf("%-34s %7.2f s  %6.2f GB/s  (best of %d; median %.2f s)\n", "load (db::load)",
              loads.front(), gb_per_s(size, loads.front()), o.repeat, loads[loads.size() / 2]);
  const double r1 = best_of(o.repeat, [&] { return read_reference(path, size, 1, false); });
  const double rn = best_of(o.repeat, [&] { return read_reference(path, size, n, false); });
  const double rf = best_of(o.repeat, [&] { return read_reference(path, size, n, true); });
  std::printf("%-34s %7.2f s  %6.2f GB/s\n", "reference read 1 thread (cat)", r1, gb_per_s(size, r1));
  std::printf("%-34s %7.2f s  %6.2f GB/s\n",
              ("reference read " + std::to_string(n) + " threads").c_str(), rn, gb_per_s(size, rn));
  std::printf("%-34s %7.2f s  %6.2f GB/s\n",
              ("reference read " + std::to_string(n) + " threads, fresh memory").c_str(), rf,
              gb_per_s(size, rf));
  if (synthetic) {
    const auto& locations = original.index.locations();
    const std::uint64_t bytes = locations.size() * sizeof(db::Location);
    volatile std::uint64_t sink = 0;
    const double c1 = best_of(o.repeat, [&] {
      const auto start = std::chrono::steady_clock::now();
      sink = sink + db::checksum64(locations.data(), bytes);
      return host::seconds_since(start);
    });
    const double cn = best_of(o.repeat, [&] {
      const auto start = std::chrono::steady_clock::now();
      sink = sink + db::chunked_checksum(locations.data(), bytes, n);
      return host::seconds_since(start);
    });
    std::printf("%-34s %7.2f s  %6.2f GB/s\n", "checksum64, 1 thread (format 1)", c1,
                gb_per_s(bytes, c1));
    std::printf("%-34s %7.2f s  %6.2f GB/s\n",
                ("chunked checksum, " + std::to_string(n) + " threads (format 2)").c_str(), cn,
                gb_per_s(bytes, cn));
    if (o.keep)
      std::printf("kept %s\n", path.c_str());
    else
      fs::remove(path);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_db_io: %s\n", e.what());
    return 1;
  }
}
