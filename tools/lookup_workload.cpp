#include "lookup_workload.hpp"

#include <algorithm>
#include <stdexcept>
#include <thread>
#include <string_view>

#include "io/parse/paired_reader.hpp"
#include "io/parse/sequence_reader.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "metawarp/sketch/host.hpp"
#include "metawarp/sketch/sketch.hpp"

namespace metawarp::tools {
namespace {

// One mate's windows, sketched as the query's kernels sketch them (the
// shared sketch rule; host_sketch_window gives the same features).
void sketch_mate(std::string_view seq, const sketch::SketchParams& params,
                 std::vector<sketch::feature_t>& features, std::vector<std::uint32_t>& sizes) {
  const std::uint64_t windows = sketch::window_count(seq.size(), params);
  sketch::feature_t out[sketch::max_sketch_size];
  for (std::uint64_t w = 0; w < windows; ++w) {
    const std::uint32_t n = sketch::host_sketch_window(seq.data(), seq.size(), w, params, out);
    features.insert(features.end(), out, out + n);
    sizes.push_back(n);
  }
}

}  // namespace

LookupBenchOptions parse_lookup_bench_options(int argc, char** argv, const char* program) {
  LookupBenchOptions o;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&] {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return std::string(argv[++i]);
    };
    if (a == "--max-reads") o.max_reads = std::stoull(value());
    else if (a == "--threads") o.threads = unsigned(std::stoul(value()));
    else if (a == "--repeat") o.repeat = std::stoi(value());
    else positional.push_back(a);
  }
  if (positional.size() < 2 || positional.size() > 3 || o.repeat < 1)
    throw std::invalid_argument(std::string("usage: ") + program +
                                " DATABASE READS_1 [READS_2] [--max-reads N] [--threads T] "
                                "[--repeat R >= 1]");
  o.database = positional[0];
  o.mates1 = positional[1];
  if (positional.size() == 3) o.mates2 = positional[2];
  if (o.threads == 0) o.threads = std::max(1u, std::thread::hardware_concurrency());
  return o;
}

LookupWorkload sketch_reads(const std::string& mates1, const std::string& mates2,
                            const sketch::SketchParams& params, std::uint64_t max_reads,
                            unsigned threads) {
  std::vector<std::pair<std::string, std::string>> reads;
  io::SequenceRecord m1, m2;
  const auto wanted = [&] { return max_reads == 0 || reads.size() < max_reads; };
  if (mates2.empty()) {
    io::SequenceReader reader(mates1);
    while (wanted() && reader.next(m1)) reads.emplace_back(std::move(m1.sequence), std::string());
  } else {
    io::PairedReader reader(mates1, mates2);
    while (wanted() && reader.next(m1, m2))
      reads.emplace_back(std::move(m1.sequence), std::move(m2.sequence));
  }
  // Sketched in ranges of reads on all threads, then concatenated in order.
  const std::size_t parts = std::max<std::size_t>(1, std::size_t(threads) * 4);
  struct Part {
    std::vector<sketch::feature_t> features;
    std::vector<std::uint32_t> sizes;         // features per window
    std::vector<std::uint32_t> read_windows;  // windows per read
  };
  std::vector<Part> done(parts);
  const std::size_t per = (reads.size() + parts - 1) / parts;
  host::parallel_for(parts, std::max(1u, threads), [&](std::size_t p) {
    Part& part = done[p];
    for (std::size_t r = p * per; r < std::min(reads.size(), (p + 1) * per); ++r) {
      const std::size_t before = part.sizes.size();
      sketch_mate(reads[r].first, params, part.features, part.sizes);
      sketch_mate(reads[r].second, params, part.features, part.sizes);
      part.read_windows.push_back(std::uint32_t(part.sizes.size() - before));
    }
  });
  LookupWorkload w;
  w.window_offsets.push_back(0);
  w.read_windows.push_back(0);
  for (const Part& part : done) {
    w.features.insert(w.features.end(), part.features.begin(), part.features.end());
    for (std::uint32_t n : part.sizes) w.window_offsets.push_back(w.window_offsets.back() + n);
    for (std::uint32_t n : part.read_windows) w.read_windows.push_back(w.read_windows.back() + n);
  }
  return w;
}

}  // namespace metawarp::tools
