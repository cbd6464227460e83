// The host's feature -> list lookup on the query's real lookups: the
// database's FeatureIndex (its own open addressing: the list's length and
// offset in the slot) against the library's host table (tables/portable_map.hpp:
// feature -> list number, then the list's bounds from the offsets), both
// looking a read's features up as the CPU classifier does (find_many per
// read), on 1 and all threads.
//
//   bench_host_lookup DATABASE READS_1 [READS_2] [--max-reads N] [--threads T] [--repeat R]
//
// Every candidate must find the same lists (their lengths are summed and
// compared); the output is one line per candidate and thread count.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "db/database.hpp"
#include "lookup_workload.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "metawarp/tables/portable_map.hpp"

using namespace metawarp;

namespace {


double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The library's host table as the lookup: feature -> list number; the list
// is then [offsets[list], offsets[list + 1]). Its two reserved keys (the
// largest features) keep their lists beside it, as the GPU's shards do.
class PortableLookup {
 public:
  explicit PortableLookup(const db::FeatureIndex& index)
      : index_(index),
        map_(std::uint64_t(1) << tables::portable_power_for(index.feature_count(), 0.75)) {
    using sentinels = tables::KeySentinels<sketch::feature_t>;
    for (std::size_t i = 0; i < index.feature_count(); ++i) {
      const sketch::feature_t f = index.features()[i];
      if (sentinels::is_valid(f)) map_.insert(f, std::uint32_t(i));
      else reserved_[f - sentinels::tombstone] = std::uint32_t(i);
    }
  }
  std::uint64_t capacity() const { return map_.capacity(); }

  // find_many's shape: prefetch every home slot of the read, then probe,
  // then read the bounds.
  void find_many(const sketch::feature_t* features, std::size_t n,
                 std::span<const sketch::Location>* out) const {
    constexpr std::size_t chunk = 64;
    std::uint32_t lists[chunk];
    const auto& slots = map_.slots();
    for (std::size_t base = 0; base < n; base += chunk) {
      const std::size_t m = std::min(chunk, n - base);
      const sketch::feature_t* f = features + base;
      for (std::size_t i = 0; i < m; ++i)
        __builtin_prefetch(&slots[tables::fibonacci_home(f[i], map_.size_power())]);
      for (std::size_t i = 0; i < m; ++i) {
        lists[i] = list_of(f[i]);
        if (lists[i] != none) __builtin_prefetch(&index_.offsets()[lists[i]]);
      }
      for (std::size_t i = 0; i < m; ++i) {
        if (lists[i] == none) {
          out[base + i] = {};
          continue;
        }
        const std::uint64_t begin = index_.offsets()[lists[i]];
        out[base + i] = {index_.locations().data() + begin,
                         std::size_t(index_.offsets()[lists[i] + 1] - begin)};
      }
    }
  }

 private:
  static constexpr std::uint32_t none = 0xffffffffu;
  std::uint32_t list_of(sketch::feature_t f) const {
    using sentinels = tables::KeySentinels<sketch::feature_t>;
    if (!sentinels::is_valid(f)) return reserved_[f - sentinels::tombstone];
    const std::optional<std::uint32_t> list = map_.find(f);
    return list ? *list : none;
  }
  const db::FeatureIndex& index_;
  tables::PortableMap<sketch::feature_t, std::uint32_t> map_;
  std::uint32_t reserved_[2] = {none, none};
};

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Runs `find_many` per read, once: on the calling thread (threads == 1; its
// CPU time, which other processes' load does not inflate) or on `threads`
// threads (wall time; reads handed out in ranges). Returns the seconds and
// the locations found.
template <class FindMany>
std::pair<double, std::uint64_t> time_lookups(const tools::LookupWorkload& w, unsigned threads,
                                              FindMany find_many) {
  const std::size_t reads = w.reads();
  const std::size_t parts = threads == 1 ? 1 : std::size_t(threads) * 16;
  std::vector<std::uint64_t> per_part(parts, 0);
  const auto run_part = [&](std::size_t p) {
    std::vector<std::span<const sketch::Location>> out;
    std::uint64_t sum = 0;
    for (std::size_t read = reads * p / parts; read < reads * (p + 1) / parts; ++read) {
      const std::uint64_t first = w.window_offsets[w.read_windows[read]];
      const std::uint64_t last = w.window_offsets[w.read_windows[read + 1]];
      out.resize(last - first);
      find_many(w.features.data() + first, last - first, out.data());
      for (const auto& list : out) sum += list.size();
    }
    per_part[p] = sum;
  };
  double seconds = 0;
  if (threads == 1) {
    const double t0 = thread_cpu_seconds();
    run_part(0);
    seconds = thread_cpu_seconds() - t0;
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    host::parallel_for(parts, threads, run_part);
    seconds = seconds_since(t0);
  }
  std::uint64_t found = 0;
  for (std::uint64_t s : per_part) found += s;
  return {seconds, found};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const metawarp::tools::LookupBenchOptions o =
      metawarp::tools::parse_lookup_bench_options(argc, argv, "bench_host_lookup");
    auto t0 = std::chrono::steady_clock::now();
    const db::Database db = db::load(o.database, o.threads);
    std::printf("database %s: %zu features, %zu locations; loaded in %.2f s\n",
                o.database.c_str(), db.index.feature_count(), db.index.location_count(),
                seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    const tools::LookupWorkload w =
        tools::sketch_reads(o.mates1, o.mates2, db.params.sketch, o.max_reads, o.threads);
    const std::uint64_t lookups = w.features.size();
    std::printf("reads: %llu, windows %llu, lookups %llu; sketched in %.2f s\n",
                (unsigned long long)w.reads(), (unsigned long long)w.windows(),
                (unsigned long long)lookups, seconds_since(t0));

    t0 = std::chrono::steady_clock::now();
    db.index.prepare_lookup();
    std::printf("FeatureIndex lookup: built in %.2f s, %.1f MB\n", seconds_since(t0),
                double(db.index.lookup_bytes()) / 1e6);
    t0 = std::chrono::steady_clock::now();
    const PortableLookup portable(db.index);
    std::printf("PortableMap lookup: built in %.2f s (serial), %.1f MB\n", seconds_since(t0),
                double(portable.capacity() * sizeof(tables::PortableSlot<sketch::feature_t,
                                                                          std::uint32_t>)) / 1e6);
    std::uint64_t hits = 0;
    for (sketch::feature_t f : w.features) hits += db.index.find(f).empty() ? 0 : 1;
    std::printf("hits: %.1f %% of the lookups\n", lookups ? 100.0 * double(hits) / lookups : 0.0);

    std::vector<unsigned> thread_counts = {1};
    if (o.threads > 1) thread_counts.push_back(o.threads);
    const auto index_find = [&](const sketch::feature_t* f, std::size_t n,
                                std::span<const sketch::Location>* out) {
      db.index.find_many(f, n, out);
    };
    const auto portable_find = [&](const sketch::feature_t* f, std::size_t n,
                                   std::span<const sketch::Location>* out) {
      portable.find_many(f, n, out);
    };
    std::uint64_t expected = ~std::uint64_t(0);
    int status = 0;
    for (unsigned threads : thread_counts) {
      // The candidates take turns (in alternating order), each keeping its
      // best round: a load that comes and goes on the host hits both alike.
      double best[2] = {1e30, 1e30};
      for (int round = 0; round < o.repeat; ++round)
        for (int turn = 0; turn < 2; ++turn) {
          const int which = (round + turn) % 2;
          const auto r = which == 0 ? time_lookups(w, threads, index_find)
                                    : time_lookups(w, threads, portable_find);
          best[which] = std::min(best[which], r.first);
          if (expected == ~std::uint64_t(0)) expected = r.second;
          if (r.second != expected) {
            std::printf("  MISMATCH: %llu locations found, %llu by the first\n",
                        (unsigned long long)r.second, (unsigned long long)expected);
            status = 1;
          }
        }
      const char* names[2] = {"FeatureIndex::find_many (bounds in the slot)",
                              "PortableMap + offsets (staged prefetch)"};
      for (int which = 0; which < 2; ++which)
        std::printf("%-44s %2u threads  %8.2f M lookups/s  %6.1f ns/lookup per thread (%s)\n",
                    names[which], threads, double(lookups) / best[which] / 1e6,
                    best[which] * threads / double(lookups) * 1e9,
                    threads == 1 ? "thread CPU time" : "wall");
    }
    return status;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_host_lookup: %s\n", e.what());
    return 1;
  }
}
