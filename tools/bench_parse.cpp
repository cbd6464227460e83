// Parse throughput of metawarp::io::SequenceReader.
//   bench_parse FILE...   time each file (plain or gzip, detected from content)
//   bench_parse           generate a synthetic FASTA (100 Mbp, plain and gzip)
//                         in the temp directory, time both, remove them
//   bench_parse --cut [--batch N] FILE [FILE2]
//                         time the query's reader thread alone: cutting the
//                         reads (pairs with FILE2) into batches of N (4096)
//                         raw blocks, no parsing
//   bench_parse --cut-parse [--batch N] FILE [FILE2]
//                         the same, and parse every batch on the same thread
//                         (what the workers do, serially)
//   bench_parse --cut-rates [--batch N] [--cut-only] FILE
//                         the host's reference rates (memcpy of 64 MiB
//                         buffers, read(2) of FILE from the page cache in 1
//                         MiB calls, pread of it by 1-16 threads), the
//                         record scan alone on the file's first 64 MiB in
//                         memory, then the cutter on FILE (uncompressed: its
//                         own threads read and scan), each with 1 to 16
//                         threads: GB/s of one mate file, what one cutting
//                         thread of the query reaches; then the cutter as
//                         the query opens a plain file (32 MiB reads, the
//                         next block read ahead while one is scanned) and
//                         the same without reading ahead, with the CPU
//                         seconds per GB of the cutting thread and of the
//                         process. --cut-only: the cutter rows alone
//   bench_parse --parse-rates [--batch N] [--threads T] [--strings|--reader] FILE [FILE2]
//                         the workers' record parse alone: the reads cut
//                         into batches of N (65536) in memory first, then
//                         parsed by 1..T threads (default 1 and 2), each
//                         with its own reused scratch as a query worker
//                         has: ns of CPU per read (pair; thread CPU time,
//                         so other work on the machine counts little) and
//                         M reads/s per thread, beside a bare line-end scan
//                         of the same bytes, for the first pass (fresh scratch: the
//                         first sample's cost) and the best later pass;
//                         --strings: records copied into strings
//                         (parse_read_blocks) instead of views; --reader:
//                         SequenceReader block by block (the parse before
//                         the views, no pair checks)
// Each file is parsed three times (the first run may include disk reads).
// Prints bytes (uncompressed and on disk), records, bases, seconds and MB/s
// (uncompressed bytes per second; 1 MB = 1e6 bytes).
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "io/cut/cut_source.hpp"
#include "io/cut/newline_scanner.hpp"
#include "io/cut/record_blocks.hpp"
#include "io/decode/byte_buffer.hpp"
#include "io/parse/read_batch.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "io/parse/sequence_reader.hpp"

namespace {

namespace fs = std::filesystem;
using metawarp::io::SequenceReader;
using metawarp::io::SequenceRecord;

constexpr int runs_per_file = 3;

void time_parse(const std::string& path) {
  const auto start = std::chrono::steady_clock::now();
  SequenceReader reader(path);
  SequenceRecord record;
  std::uint64_t records = 0;
  std::uint64_t bases = 0;
  while (reader.next(record)) {
    ++records;
    bases += record.sequence.size();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::error_code error;
  const auto on_disk = path == "-" ? 0 : fs::file_size(path, error);
  const double megabytes = static_cast<double>(reader.bytes_consumed()) / 1e6;
  std::printf("%s: bytes %llu (on disk %llu), records %llu, bases %llu, seconds %.3f, %.1f MB/s\n",
              path.c_str(), static_cast<unsigned long long>(reader.bytes_consumed()),
              static_cast<unsigned long long>(on_disk), static_cast<unsigned long long>(records),
              static_cast<unsigned long long>(bases), seconds, megabytes / seconds);
}

void time_cut(const std::vector<std::string>& paths, std::size_t batch, bool parse) {
  const auto start = std::chrono::steady_clock::now();
  metawarp::io::ReadBlockCutter cutter(paths, false);
  metawarp::io::ReadBlocks blocks;
  std::vector<SequenceRecord> mates1, mates2;
  std::uint64_t bytes = 0;
  std::uint64_t records = 0;
  std::uint64_t batches = 0;
  while (cutter.next(blocks, batch, std::size_t(64) << 20)) {
    ++batches;
    bytes += blocks.first.bytes.size() + (paths.size() == 2 ? blocks.second.bytes.size() : 0);
    records += blocks.first.records + (paths.size() == 2 ? blocks.second.records : 0);
    if (parse) {
      const auto parsed = metawarp::io::parse_read_blocks(cutter.layout(), blocks, mates1, mates2);
      if (parsed.error) std::rethrow_exception(parsed.error);
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s %s: batch %zu, %llu batches, bytes %llu, records %llu, seconds %.3f, %.1f MB/s, "
              "%.2f M records/s\n",
              parse ? "cut+parse" : "cut", paths.size() == 2 ? "pairs" : paths[0].c_str(), batch,
              static_cast<unsigned long long>(batches), static_cast<unsigned long long>(bytes),
              static_cast<unsigned long long>(records), seconds, double(bytes) / 1e6 / seconds,
              double(records) / 1e6 / seconds);
}

int run_cut(int argc, char** argv, bool parse) {
  std::size_t batch = 4096;
  std::vector<std::string> paths;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--batch" && i + 1 < argc) {
      batch = std::stoul(argv[++i]);
    } else {
      paths.emplace_back(argv[i]);
    }
  }
  if (paths.empty() || paths.size() > 2) {
    std::fprintf(stderr, "bench_parse %s: one reads file, or two for pairs\n", argv[1]);
    return 2;
  }
  for (int run = 0; run < runs_per_file; ++run) time_cut(paths, batch, parse);
  return 0;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU time of the calling thread: on a shared machine, wall time would count
// the time others' work held the core.
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

int open_or_fail(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  return fd;
}

// memcpy between two 64 MiB buffers (beyond the caches), 1 GiB in all.
double memcpy_gbps() {
  constexpr std::size_t size = std::size_t(64) << 20;
  metawarp::io::ByteBuffer from, to;
  from.resize(size);
  to.resize(size);
  std::memset(from.data(), 'A', size);
  std::memset(to.data(), 'C', size);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 16; ++i) std::memcpy(to.data(), from.data(), size);
  return 16.0 * double(size) / 1e9 / seconds_since(start);
}

// read(2) of the whole file in 1 MiB calls into a 64 MiB ring.
double read_gbps(const std::string& path) {
  const int fd = open_or_fail(path);
  metawarp::io::ByteBuffer ring;
  ring.resize(std::size_t(64) << 20);
  std::memset(ring.data(), 0, ring.size());
  std::uint64_t total = 0;
  std::size_t at = 0;
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    if (at + (std::size_t(1) << 20) > ring.size()) at = 0;
    const ssize_t n = ::read(fd, ring.data() + at, std::size_t(1) << 20);
    if (n <= 0) break;
    total += std::uint64_t(n);
    at += std::size_t(n);
  }
  const double seconds = seconds_since(start);
  ::close(fd);
  return double(total) / 1e9 / seconds;
}

// The file through the cutter's parallel source in 16 MiB reads.
double pread_gbps(const std::string& path, unsigned threads) {
  auto source = metawarp::io::make_parallel_file_source(open_or_fail(path), threads);
  metawarp::io::ByteBuffer buffer;
  buffer.resize(std::size_t(16) << 20);
  std::memset(buffer.data(), 0, buffer.size());
  std::uint64_t total = 0;
  const auto start = std::chrono::steady_clock::now();
  while (const std::size_t n = source->read(buffer.data(), buffer.size())) total += n;
  return double(total) / 1e9 / seconds_since(start);
}

// The record scan alone (io/cut/record_scan.hpp, what the cutter runs on the
// bytes it has read): the file's first 64 MiB, read once, scanned 16 times
// with `threads` threads.
double scan_gbps(const std::string& path, unsigned threads) {
  const int fd = open_or_fail(path);
  metawarp::io::ByteBuffer buffer;
  buffer.resize(std::size_t(64) << 20);
  std::size_t size = 0;
  while (size < buffer.size()) {
    const ssize_t n = ::pread(fd, buffer.data() + size, buffer.size() - size, off_t(size));
    if (n <= 0) break;
    size += std::size_t(n);
  }
  ::close(fd);
  const metawarp::io::Format format =
      size > 0 && buffer.data()[0] == '>' ? metawarp::io::Format::fasta : metawarp::io::Format::fastq;
  metawarp::io::WholeRecordScanner scanner(metawarp::io::ScanThreads{threads});
  const metawarp::io::ScanLimits no_limits{0, ~std::uint64_t{0}, ~std::size_t{0}};
  std::uint64_t records = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 16; ++i) records += scanner.scan(format, buffer.data(), size, 0, no_limits).records;
  if (records == 0) throw std::runtime_error(path + ": no whole record in its first 64 MiB");
  return 16.0 * double(size) / 1e9 / seconds_since(start);
}

// CPU time of the whole process (every thread's).
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// One cut of a file: GB/s, and CPU seconds per GB of the cutting thread and
// of the process (the cutting thread and those it starts).
struct CutRate {
  double gbps = 0;
  double thread_cpu_per_gb = 0;
  double process_cpu_per_gb = 0;
};

// How the cutter reads: `threads` read and scan (1: read(2) through
// open_byte_source, 1 MiB reads); `query`: as the query opens a plain file
// (32 MiB reads, read ahead: io/cut/cut_source.hpp), with `read_ahead` or not.
struct CutSetup {
  unsigned threads = 1;
  bool query = false;
  bool read_ahead = false;
};

// Cuts the file into blocks of `batch` records (64 MiB at most, as the
// query does) on this thread, into `blocks` in turn (as the query's batches).
CutRate cut_rate(const std::string& path, const CutSetup& setup, std::size_t batch,
                 std::vector<metawarp::io::RecordBlock>& blocks) {
  using metawarp::io::RecordBlockSplitter;
  std::unique_ptr<RecordBlockSplitter> splitter;
  const metawarp::io::ScanThreads scan{setup.threads};
  if (setup.query)
    splitter = std::make_unique<RecordBlockSplitter>(
        metawarp::io::make_parallel_file_source(open_or_fail(path), setup.threads), path,
        metawarp::io::parallel_read_bytes, scan, setup.read_ahead);
  else if (setup.threads <= 1)
    splitter = std::make_unique<RecordBlockSplitter>(metawarp::io::open_byte_source(path), path);
  else
    splitter = std::make_unique<RecordBlockSplitter>(
        metawarp::io::make_parallel_file_source(open_or_fail(path), setup.threads), path,
        std::size_t(16) << 20, scan);
  std::uint64_t total = 0;
  const auto start = std::chrono::steady_clock::now();
  const double thread_start = thread_cpu_seconds();
  const double process_start = process_cpu_seconds();
  for (std::size_t i = 0;; ++i) {
    metawarp::io::RecordBlock& block = blocks[i % blocks.size()];
    splitter->next_block(block, batch, std::size_t(64) << 20);
    if (block.empty()) break;
    total += block.bytes.size();
  }
  const double gb = double(total) / 1e9;
  return {gb / seconds_since(start), (thread_cpu_seconds() - thread_start) / gb,
          (process_cpu_seconds() - process_start) / gb};
}

int run_cut_rates(int argc, char** argv) {
  std::size_t batch = 65536;
  bool cut_only = false;
  std::string path;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--batch" && i + 1 < argc)
      batch = std::stoul(argv[++i]);
    else if (std::string(argv[i]) == "--cut-only")
      cut_only = true;
    else
      path = argv[i];
  }
  if (path.empty()) {
    std::fprintf(stderr, "bench_parse --cut-rates: one uncompressed reads file\n");
    return 2;
  }
  const auto best = [](auto f) {  // of three runs: the first may read the disk
    double rate = 0;
    for (int run = 0; run < runs_per_file; ++run) rate = std::max(rate, f());
    return rate;
  };
  // The fastest of three. The query's rows keep their blocks from run to
  // run, as the query's buffers are kept (their first touch is not timed).
  const auto best_cut = [&](const CutSetup& setup) {
    CutRate rate;
    std::vector<metawarp::io::RecordBlock> kept(4);
    for (int run = 0; run < runs_per_file; ++run) {
      std::vector<metawarp::io::RecordBlock> fresh(4);
      const CutRate r = cut_rate(path, setup, batch, setup.query ? kept : fresh);
      if (r.gbps > rate.gbps) rate = r;
    }
    return rate;
  };
  const unsigned thread_counts[] = {1, 2, 3, 4, 6, 8, 12, 16};
  const auto print_query_cuts = [&] {
    for (const unsigned threads : thread_counts) {
      const CutRate ahead = best_cut({threads, true, true});
      const CutRate not_ahead = best_cut({threads, true, false});
      std::printf("cut as the query reads, batch %zu, %u read+scan threads: read ahead %.2f GB/s (CPU s/GB: "
                  "cutting thread %.3f, process %.3f); not read ahead %.2f GB/s (%.3f, %.3f)\n",
                  batch, threads, ahead.gbps, ahead.thread_cpu_per_gb, ahead.process_cpu_per_gb,
                  not_ahead.gbps, not_ahead.thread_cpu_per_gb, not_ahead.process_cpu_per_gb);
    }
  };
  if (cut_only) {
    print_query_cuts();
    return 0;
  }
  std::printf("memcpy, 1 thread: %.2f GB/s\n", best([] { return memcpy_gbps(); }));
  std::printf("read(2) from the page cache, 1 thread: %.2f GB/s\n", best([&] { return read_gbps(path); }));
  for (const unsigned threads : thread_counts)
    std::printf("pread, %u threads: %.2f GB/s\n", threads, best([&] { return pread_gbps(path, threads); }));
  for (const unsigned threads : thread_counts)
    std::printf("record scan of the file's first 64 MiB in memory, %u threads: %.2f GB/s\n", threads,
                best([&] { return scan_gbps(path, threads); }));
  for (const unsigned threads : thread_counts)
    std::printf("cut, batch %zu, %u read+scan threads: %.2f GB/s\n", batch, threads,
                best_cut({threads, false, false}).gbps);
  print_query_cuts();
  return 0;
}

// Every batch of the reads, cut once and kept in memory.
std::vector<metawarp::io::ReadBlocks> cut_all(const std::vector<std::string>& paths,
                                              std::size_t batch) {
  metawarp::io::ReadBlockCutter cutter(paths, false);
  std::vector<metawarp::io::ReadBlocks> all(1);
  while (cutter.next(all.back(), batch, std::size_t(64) << 20)) all.emplace_back();
  all.pop_back();
  return all;
}

// How a batch is parsed: into views (the query's parse), into strings
// (parse_read_blocks), or by SequenceReader into strings block by block
// (the query's parse before the views: the reference).
enum class ParseInto { views, strings, reader };

// A worker's parse scratch, kept from batch to batch.
struct ParseScratch {
  ParseInto into = ParseInto::views;
  metawarp::io::ReadViewBatch views;
  std::vector<SequenceRecord> mates1, mates2;
};

// Parses `batches` (every `threads`-th from `first`) into `scratch`; returns reads.
std::uint64_t parse_share(metawarp::io::ReadLayout layout,
                          const std::vector<metawarp::io::ReadBlocks>& batches,
                          std::size_t first, std::size_t threads, ParseScratch& scratch) {
  std::uint64_t reads = 0;
  for (std::size_t b = first; b < batches.size(); b += threads) {
    if (scratch.into == ParseInto::reader) {
      const metawarp::io::ReadBlocks& blocks = batches[b];
      std::size_t count = 0;
      for (auto [block, records] : {std::pair{&blocks.first, &scratch.mates1},
                                    std::pair{&blocks.second, &scratch.mates2}}) {
        if (records->size() < block->records + 1) records->resize(block->records + 1);
        SequenceReader reader(*block);
        count = 0;
        while (reader.next((*records)[count])) ++count;
        if (layout == metawarp::io::ReadLayout::single) break;
      }
      reads += count;
      continue;
    }
    const auto parsed =
        scratch.into == ParseInto::strings
            ? metawarp::io::parse_read_blocks(layout, batches[b], scratch.mates1, scratch.mates2)
            : metawarp::io::parse_read_views(layout, batches[b], scratch.views);
    if (parsed.error) std::rethrow_exception(parsed.error);
    reads += parsed.count;
  }
  return reads;
}

// The floor under any parse: every line end of the batches found (the
// NewlineScanner alone), one pass; returns line ends (so nothing is optimised away).
std::uint64_t count_line_ends(const std::vector<metawarp::io::ReadBlocks>& batches,
                              std::size_t first, std::size_t threads) {
  std::uint64_t lines = 0;
  for (std::size_t b = first; b < batches.size(); b += threads)
    for (const auto* block : {&batches[b].first, &batches[b].second}) {
      metawarp::io::NewlineScanner scanner(block->bytes.data(), block->bytes.size());
      for (std::size_t at = scanner.find(0); at != metawarp::io::NewlineScanner::npos;
           at = scanner.find(at + 1))
        ++lines;
    }
  return lines;
}

int run_parse_rates(int argc, char** argv) {
  std::size_t batch = 65536;
  unsigned max_threads = 2;
  ParseInto into = ParseInto::views;
  std::vector<std::string> paths;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--strings")
      into = ParseInto::strings;
    else if (arg == "--reader")
      into = ParseInto::reader;
    else if (arg == "--batch" && i + 1 < argc)
      batch = std::stoul(argv[++i]);
    else if (arg == "--threads" && i + 1 < argc)
      max_threads = unsigned(std::stoul(argv[++i]));
    else
      paths.push_back(arg);
  }
  if (paths.empty() || paths.size() > 2) {
    std::fprintf(stderr, "bench_parse --parse-rates: one reads file, or two for pairs\n");
    return 2;
  }
  const auto layout =
      paths.size() == 2 ? metawarp::io::ReadLayout::two_files : metawarp::io::ReadLayout::single;
  const std::vector<metawarp::io::ReadBlocks> batches = cut_all(paths, batch);
  for (unsigned threads = 1; threads <= max_threads; ++threads) {
    std::vector<ParseScratch> scratch(threads);
    for (ParseScratch& s : scratch) s.into = into;
    double first_pass = 0, best = 0;
    std::uint64_t reads = 0;
    for (int pass = 0; pass < 2 + runs_per_file; ++pass) {
      std::vector<std::uint64_t> counts(threads);
      std::vector<double> cpu(threads);
      metawarp::host::parallel_for(threads, threads, [&](std::size_t t) {
        const double start = thread_cpu_seconds();
        counts[t] = parse_share(layout, batches, t, threads, scratch[t]);
        cpu[t] = thread_cpu_seconds() - start;
      });
      double seconds = 0;  // CPU seconds of all threads
      for (const double c : cpu) seconds += c;
      reads = 0;
      for (const std::uint64_t c : counts) reads += c;
      if (pass == 0) first_pass = seconds;
      else if (best == 0 || seconds < best) best = seconds;
    }
    double scan = 0;
    for (int pass = 0; pass < runs_per_file; ++pass) {
      std::vector<double> cpu(threads);
      std::vector<std::uint64_t> lines(threads);
      metawarp::host::parallel_for(threads, threads, [&](std::size_t t) {
        const double start = thread_cpu_seconds();
        lines[t] = count_line_ends(batches, t, threads);
        cpu[t] = thread_cpu_seconds() - start;
      });
      double seconds = 0;
      for (const double c : cpu) seconds += c;
      if (scan == 0 || seconds < scan) scan = seconds;
    }
    const auto per_read_ns = [&](double s) { return s / double(reads) * 1e9; };
    std::printf("line ends alone (NewlineScanner), %u threads: %.0f ns per %s\n", threads,
                per_read_ns(scan), paths.size() == 2 ? "pair" : "read");
    std::printf("parse into %s, batch %zu, %u threads, %llu %s: first pass %.0f ns per %s (%.2f M/s per "
                "thread), later %.0f ns (%.2f M/s per thread)\n",
                into == ParseInto::views     ? "views"
                : into == ParseInto::strings ? "strings"
                                             : "strings by SequenceReader",
                batch, threads, static_cast<unsigned long long>(reads),
                paths.size() == 2 ? "pairs" : "reads", per_read_ns(first_pass),
                paths.size() == 2 ? "pair" : "read", 1e3 / per_read_ns(first_pass),
                per_read_ns(best), 1e3 / per_read_ns(best));
  }
  return 0;
}

// Genome-like records of random bases in 80-column lines, a few hundred kbp
// to a few Mbp each.
std::string synthetic_fasta(std::size_t total_bases) {
  std::mt19937_64 random(42);
  std::string text;
  text.reserve(total_bases + total_bases / 80 + 4096);
  std::size_t written = 0;
  for (int record = 1; written < total_bases; ++record) {
    const std::size_t length = std::min<std::size_t>(
        total_bases - written, 200'000 + random() % 3'000'000);
    text += ">synthetic_" + std::to_string(record) + " generated by bench_parse\n";
    for (std::size_t i = 0; i < length; ++i) {
      text += "ACGT"[random() & 3];
      if ((i + 1) % 80 == 0 || i + 1 == length) text += '\n';
    }
    written += length;
  }
  return text;
}

int run_synthetic() {
  const fs::path directory = fs::temp_directory_path();
  const std::string plain = (directory / ("bench_parse_" + std::to_string(::getpid()) + ".fa")).string();
  const std::string gzip = plain + ".gz";
  const std::string text = synthetic_fasta(100'000'000);
  std::ofstream(plain, std::ios::binary).write(text.data(), static_cast<std::streamsize>(text.size()));
  gzFile file = gzopen(gzip.c_str(), "wb1");  // level 1: quick to write
  if (file == nullptr || gzwrite(file, text.data(), static_cast<unsigned>(text.size())) == 0 ||
      gzclose(file) != Z_OK) {
    std::fprintf(stderr, "cannot write %s\n", gzip.c_str());
    return 1;
  }
  for (int run = 0; run < runs_per_file; ++run) time_parse(plain);
  for (int run = 0; run < runs_per_file; ++run) time_parse(gzip);
  fs::remove(plain);
  fs::remove(gzip);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) return run_synthetic();
    if (std::string(argv[1]) == "--cut") return run_cut(argc, argv, false);
    if (std::string(argv[1]) == "--cut-parse") return run_cut(argc, argv, true);
    if (std::string(argv[1]) == "--cut-rates") return run_cut_rates(argc, argv);
    if (std::string(argv[1]) == "--parse-rates") return run_parse_rates(argc, argv);
    for (int i = 1; i < argc; ++i) {
      for (int run = 0; run < runs_per_file; ++run) time_parse(argv[i]);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_parse: %s\n", error.what());
    return 1;
  }
  return 0;
}
