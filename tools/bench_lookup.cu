// The GPU query's feature -> list lookup on its real access pattern: the
// features of real reads' sketches, looked up in a database's features in the
// order the query's lookup kernel issues them (a group of threads takes
// consecutive windows; each window's features in sketch order; hits and
// misses as the reads have them), then the list's bounds read from the
// offsets, for every candidate table at the load factors the memory rule
// (index/lookup_capacity.hpp: at most 10 bytes per feature) allows, next to
// the device's random-read ceiling (bench_ceilings.cuh).
//
//   bench_lookup DATABASE READS_1 [READS_2] [--max-reads N] [--threads T] [--repeat R]
//
// Candidates: the hand-written table the query used before (u64 slots,
// linear probing, a thread per lookup), the library's single-value table
// (packed u32 feature -> u32 list number; linear / double hashing; groups of
// 1, 2, 4), bucketed cuckoo (B = 8), the CSR table, and the application's own
// path (kernels::DeviceShard + kernels::find). Every candidate's hits and
// locations are checked against the host's FeatureIndex. "GB/s" counts one
// 32-byte sector per lookup (the least a random lookup reads), so its ratio
// to the ceiling is the lookups' ratio to random sector reads.
#include <cooperative_groups.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench_ceilings.cuh"
#include "db/database.hpp"
#include "kernels/device_index.cuh"
#include "lookup_workload.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "metawarp/index/lookup_capacity.hpp"
#include "metawarp/tables/bucketed_cuckoo_table.cuh"
#include "metawarp/tables/csr_table.cuh"
#include "metawarp/tables/single_value_table.cuh"

namespace cg = cooperative_groups;
namespace mwc = metawarp::cuda;
namespace mwt = metawarp::tables;
using metawarp::bench::bench_stream;
using metawarp::bench::Ceilings;
using metawarp::bench::time_best;
using std::uint32_t;
using std::uint64_t;

namespace {

constexpr uint32_t none = 0xffffffffu;
using sentinels = mwt::KeySentinels<uint32_t>;


// The database's arrays and the lookups, on the device.
struct DeviceData {
  uint64_t features = 0;  // the first `insertable` hold no reserved key
  uint64_t insertable = 0;
  uint32_t reserved[2] = {none, none};  // lists of features 2^32 - 2, 2^32 - 1
  mwc::device_buffer<uint32_t> keys, values, offsets;  // features, list numbers, offsets
  mwc::device_buffer<uint32_t> lookups;
  mwc::device_buffer<uint64_t> window_offsets;
  uint64_t windows = 0;
  mwc::device_buffer<uint2> ranges;     // per lookup: (begin, count)
  mwc::device_buffer<uint64_t> window_hits;
  mwc::device_buffer<unsigned long long> check;  // hits, locations
};

// A list number -> its (begin, count) from the offsets.
__device__ inline uint2 range_of(const uint32_t* offsets, uint32_t list) {
  if (list == none) return make_uint2(0, 0);
  const uint32_t begin = offsets[list];
  return make_uint2(begin, offsets[list + 1] - begin);
}

// lookup_count_kernel's shape (kernels/query_kernels.cuh): the threads of a
// group take consecutive windows, then the group looks every member's
// features up, member by member.
template <class Finder>
__global__ void lookup_kernel(Finder finder, const uint32_t* lookups,
                              const uint64_t* window_offsets, uint64_t windows, uint2* ranges,
                              uint64_t* window_hits) {
  constexpr int G = Finder::group_size;
  const auto group = cg::tiled_partition<G>(cg::this_thread_block());
  const unsigned lane = group.thread_rank();
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t first = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x - lane; first < windows;
       first += stride) {
    uint64_t total = 0;
    for (unsigned member = 0; member < G; ++member) {
      const uint64_t w = first + member;
      if (w >= windows) break;
      for (uint64_t k = window_offsets[w]; k < window_offsets[w + 1]; ++k) {
        const uint2 r = finder.range(group, lookups[k]);
        if (lane == member) {
          ranges[k] = r;
          total += r.y;
        }
      }
    }
    if (first + lane < windows) window_hits[first + lane] = total;
  }
}

__global__ void check_kernel(const uint2* ranges, uint64_t n, unsigned long long* out) {
  unsigned long long hits = 0, locations = 0;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    hits += ranges[i].y > 0;
    locations += ranges[i].y;
  }
  atomicAdd(out, hits);
  atomicAdd(out + 1, locations);
}

// ---------------------------------------------------------------- candidates

// The query's table before round 1 (kernels/device_index.cuh until then): u64
// slots (feature << 32 | list), linear probing from fmix32, a thread each.
struct HandWritten {
  static constexpr int group_size = 1;
  const uint64_t* slots;
  uint64_t capacity;
  const uint32_t* offsets;
  __device__ static uint64_t start(uint32_t f, uint64_t capacity) {
    return (uint64_t(metawarp::hash::fmix32(f)) * capacity) >> 32;
  }
  template <class Group>
  __device__ uint2 range(const Group&, uint32_t f) const {
    for (uint64_t slot = start(f, capacity);;) {
      const uint64_t entry = slots[slot];
      if (entry == ~uint64_t(0)) return make_uint2(0, 0);
      if (uint32_t(entry >> 32) == f) return range_of(offsets, uint32_t(entry));
      if (++slot == capacity) slot = 0;
    }
  }
};

__global__ void hand_written_build(const uint32_t* features, uint64_t n, uint64_t* slots,
                                   uint64_t capacity) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const unsigned long long entry = (uint64_t(features[i]) << 32) | i;
    uint64_t slot = HandWritten::start(features[i], capacity);
    while (atomicCAS(reinterpret_cast<unsigned long long*>(slots + slot), ~0ull, entry) != ~0ull)
      if (++slot == capacity) slot = 0;
  }
}

// A library table's ref with a find(g, key, value): the reserved keys'
// lists beside it, as the application keeps them.
template <class Ref>
struct TableFinder {
  static constexpr int group_size = Ref::group_size;
  Ref ref;
  uint32_t reserved0, reserved1;
  const uint32_t* offsets;
  template <class Group>
  __device__ uint2 range(const Group& g, uint32_t f) const {
    if (!sentinels::is_valid(f))
      return range_of(offsets, f == sentinels::tombstone ? reserved0 : reserved1);
    uint32_t list = none;
    return range_of(offsets, ref.find(g, f, list) ? list : none);
  }
};

// The CSR table: the feature's vertex list holds (feature, list number).
template <class Ref>
struct CsrFinder {
  static constexpr int group_size = Ref::group_size;
  Ref ref;
  const uint32_t* offsets;
  template <class Group>
  __device__ uint2 range(const Group& g, uint32_t f) const {
    uint32_t list = none;
    ref.for_each_value(g, f, [&](uint32_t v, uint64_t) { list = v; });
    const unsigned holder = g.ballot(list != none);
    return range_of(offsets, holder ? g.shfl(list, __ffs(holder) - 1) : none);
  }
};

// The application's own path (kernels::FeatureLookupTable in one
// DeviceShard), looked up by kernels::find.
struct AppFinder {
  static constexpr int group_size = metawarp::kernels::lookup_group_size;
  metawarp::kernels::DeviceIndexView index;
  template <class Group>
  __device__ uint2 range(const Group& g, uint32_t f) const {
    const metawarp::kernels::ListRange r = metawarp::kernels::find(g, index, f);
    return make_uint2(r.begin, r.count);
  }
};

// ------------------------------------------------------------------- running

struct Expected {
  unsigned long long hits = 0, locations = 0;
};

class Runner {
 public:
  Runner(DeviceData& d, const Ceilings& c, Expected e, int repeat)
      : d_(d), c_(c), e_(e), repeat_(repeat) {}

  // Times the lookups through `finder`; checks them; prints one line.
  template <class Finder>
  void run(const std::string& name, double load, double table_bytes, double build_s,
           const Finder& finder) {
    const unsigned block = 256;
    const unsigned blocks = unsigned(std::min<uint64_t>((d_.windows + block - 1) / block, 1u << 20));
    const double t = time_best([&] {
      lookup_kernel<<<std::max(1u, blocks), block, 0, bench_stream>>>(
          finder, d_.lookups.data(), d_.window_offsets.data(), d_.windows, d_.ranges.data(),
          d_.window_hits.data());
      mwc::check_launch("lookup_kernel");
    }, {}, repeat_);
    d_.check.fill_bytes(0, bench_stream);
    check_kernel<<<1024, 256, 0, bench_stream>>>(d_.ranges.data(), d_.lookups.size(),
                                                 d_.check.data());
    unsigned long long got[2] = {0, 0};
    d_.check.copy_to_host(got, 2, bench_stream);
    mwc::check(cudaStreamSynchronize(bench_stream), "checking the lookups");
    const double lookups = double(d_.lookups.size());
    const double rate = lookups / t;
    std::printf("%-40s load %.2f %5.2f B/feature  build %7.4f s  %7.3f G lookups/s  %6.1f GB/s"
                "  %5.1f%% of ceiling%s\n",
                name.c_str(), load, table_bytes / double(d_.features), build_s, rate / 1e9,
                rate * 32 / 1e9, 100.0 * rate / c_.sector_reads,
                got[0] == e_.hits && got[1] == e_.locations ? "" : "  WRONG RESULTS");
    if (got[0] != e_.hits || got[1] != e_.locations) {
      std::printf("  found %llu hits / %llu locations, the host %llu / %llu\n", got[0], got[1],
                  e_.hits, e_.locations);
      failed_ = true;
    }
    std::fflush(stdout);
  }
  bool failed() const { return failed_; }

 private:
  DeviceData& d_;
  const Ceilings& c_;
  Expected e_;
  int repeat_;
  bool failed_ = false;
};

double seconds_of(const std::function<void()>& work) {
  mwc::check(cudaDeviceSynchronize(), "before a build");
  const auto t0 = std::chrono::steady_clock::now();
  work();
  mwc::check(cudaDeviceSynchronize(), "a build");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void bench_hand_written(DeviceData& d, Runner& run) {
  const uint64_t capacity = metawarp::index::lookup_min_slots(d.features);
  mwc::device_buffer<uint64_t> slots(std::max<uint64_t>(capacity, d.features + 1));
  const double build = seconds_of([&] {
    slots.fill_bytes(0xff, bench_stream);
    hand_written_build<<<4096, 256, 0, bench_stream>>>(d.keys.data(), d.features, slots.data(),
                                                       slots.size());
    mwc::check_launch("hand_written_build");
  });
  run.run("hand-written u64 LP g1 (before)", double(d.features) / slots.size(),
          double(slots.size_bytes()), build, HandWritten{slots.data(), slots.size(), d.offsets.data()});
}

template <class Probing, int G>
void bench_single(const char* name, double load, DeviceData& d, Runner& run) {
  using Table = mwt::SingleValueHashTable<uint32_t, uint32_t, mwt::PackedLayout<uint32_t, uint32_t>,
                                          Probing, mwt::MurmurHasher, G>;
  std::unique_ptr<Table> table;
  const double build = seconds_of([&] {
    table = std::make_unique<Table>(uint64_t(double(d.features) / load) + 1, mwt::TableOptions{},
                                    bench_stream);
    table->insert(d.keys.data(), d.values.data(), d.insertable, bench_stream);
  });
  if (table->pop_status(bench_stream).has_error()) std::printf("  (%s: insert errors)\n", name);
  using Finder = TableFinder<typename Table::Ref>;
  run.run(std::string(name) + " g" + std::to_string(G), double(d.features) / table->capacity(),
          double(table->bytes()), build,
          Finder{table->ref(), d.reserved[0], d.reserved[1], d.offsets.data()});
}

void bench_cuckoo(double load, DeviceData& d, Runner& run) {
  using Table = mwt::BucketedCuckooTable<uint32_t, uint32_t, 8>;
  mwt::CuckooOptions options;
  options.unique_keys_checked = false;  // the features are distinct
  std::unique_ptr<Table> table;
  mwt::CuckooBuildResult result;
  const double build = seconds_of([&] {
    table = std::make_unique<Table>(uint64_t(double(d.features) / load) + 1, options, bench_stream);
    result = table->build(d.keys.data(), d.values.data(), d.insertable, bench_stream);
  });
  if (!result.ok()) {
    std::printf("bcht B=8 load %.2f: build failed after %d attempts\n", load, result.attempts);
    return;
  }
  using Finder = TableFinder<Table::Ref>;
  run.run("bcht packed B=8 (" + std::to_string(result.attempts) + " attempt(s))",
          double(d.features) / table->capacity(), double(table->bytes()), build,
          Finder{table->ref(), d.reserved[0], d.reserved[1], d.offsets.data()});
}

template <int G>
void bench_csr(double load, DeviceData& d, Runner& run) {
  using Table = mwt::CsrTable<uint32_t, uint32_t, mwt::MurmurHasher, G>;
  mwt::CsrOptions options;
  options.load_factor = load;
  std::unique_ptr<Table> table;
  const double build = seconds_of([&] {
    table = std::make_unique<Table>(d.keys.data(), d.values.data(), d.features, options,
                                    bench_stream);
  });
  run.run("csr g" + std::to_string(G), table->load_factor(), double(table->bytes()), build,
          CsrFinder<typename Table::Ref>{table->ref(), d.offsets.data()});
}

void bench_app(DeviceData& d, Runner& run) {
  namespace k = metawarp::kernels;
  k::DeviceShard shard(d.features, 0);
  mwc::check(cudaMemcpyAsync(shard.features(), d.keys.data(), d.features * sizeof(uint32_t),
                             cudaMemcpyDeviceToDevice, bench_stream), "copying the features");
  mwc::check(cudaMemcpyAsync(shard.offsets(), d.offsets.data(), (d.features + 1) * sizeof(uint32_t),
                             cudaMemcpyDeviceToDevice, bench_stream), "copying the offsets");
  const double build = seconds_of([&] { shard.build_lookup(bench_stream); });
  const k::ShardView view = shard.view();
  const uint32_t begin = 0;
  const uint32_t window_base[2] = {0, 0xffffffffu};
  const k::DeviceIndexTable table({&view, 1}, {&begin, 1}, {window_base, 2}, bench_stream);
  // The line names the table the application chose (kernels::FeatureLookupTable).
  using Chosen = k::FeatureLookupTable;
  const int attempts = shard.lookup_attempts();
  run.run("application = " + std::string(Chosen::name) + " B=" +
              std::to_string(Chosen::group_size) +
              (attempts > 1 ? " (" + std::to_string(attempts) + " attempts)" : std::string()),
          double(d.features) / double(shard.lookup_capacity()),
          double(shard.lookup_capacity() * sizeof(uint64_t)), build, AppFinder{table.view()});
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) try {
  const metawarp::tools::LookupBenchOptions o =
      metawarp::tools::parse_lookup_bench_options(argc, argv, "bench_lookup");
  const unsigned threads = o.threads;
  cudaDeviceProp prop{};
  mwc::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("device: %s, %d SMs, %.1f GiB\n", prop.name, prop.multiProcessorCount,
              prop.totalGlobalMem / double(1 << 30));

  auto t0 = std::chrono::steady_clock::now();
  const metawarp::db::Database db = metawarp::db::load(o.database, threads);
  const auto& index = db.index;
  std::printf("database %s: %zu features, %zu locations, %zu targets; loaded in %.1f s\n",
              o.database.c_str(), index.feature_count(), index.location_count(),
              db.targets.size(), since(t0));
  if (index.location_count() >= (uint64_t(1) << 32))
    throw std::runtime_error("the database has 2^32 locations or more (one shard's 32-bit "
                             "offsets); use a smaller one");
  t0 = std::chrono::steady_clock::now();
  const metawarp::tools::LookupWorkload w = metawarp::tools::sketch_reads(
      o.mates1, o.mates2, db.params.sketch, o.max_reads, threads);
  std::printf("reads: %llu, windows %llu, lookups %llu; sketched in %.1f s\n",
              (unsigned long long)w.reads(), (unsigned long long)w.windows(),
              (unsigned long long)w.features.size(), since(t0));

  // What every candidate must find: the host's FeatureIndex.
  t0 = std::chrono::steady_clock::now();
  index.prepare_lookup();
  const std::size_t parts = std::size_t(threads) * 8;
  std::vector<Expected> per(parts);
  metawarp::host::parallel_for(parts, threads, [&](std::size_t p) {
    const std::size_t n = w.features.size();
    for (std::size_t i = n * p / parts; i < n * (p + 1) / parts; ++i) {
      const std::size_t size = index.find(w.features[i]).size();
      per[p].hits += size > 0;
      per[p].locations += size;
    }
  });
  Expected e;
  for (const Expected& x : per) e.hits += x.hits, e.locations += x.locations;
  std::printf("hits: %llu of the lookups (%.1f %%), %llu locations; host check in %.1f s\n",
              e.hits, 100.0 * double(e.hits) / double(std::max<std::size_t>(1, w.features.size())),
              e.locations, since(t0));

  DeviceData d;
  d.features = index.feature_count();
  d.insertable = d.features;
  while (d.insertable > 0 && !sentinels::is_valid(index.features()[d.insertable - 1])) {
    --d.insertable;
    d.reserved[index.features()[d.insertable] - sentinels::tombstone] = uint32_t(d.insertable);
  }
  std::vector<uint32_t> values(d.features), offsets(d.features + 1);
  for (uint64_t i = 0; i < d.features; ++i) values[i] = uint32_t(i);
  for (uint64_t i = 0; i <= d.features; ++i) offsets[i] = uint32_t(index.offsets()[i]);
  d.keys = mwc::device_buffer<uint32_t>(d.features);
  d.keys.copy_from_host(index.features().data(), d.features, bench_stream);
  d.values = mwc::device_buffer<uint32_t>(d.features);
  d.values.copy_from_host(values.data(), d.features, bench_stream);
  d.offsets = mwc::device_buffer<uint32_t>(d.features + 1);
  d.offsets.copy_from_host(offsets.data(), d.features + 1, bench_stream);
  d.lookups = mwc::device_buffer<uint32_t>(w.features.size());
  d.lookups.copy_from_host(w.features.data(), w.features.size(), bench_stream);
  d.windows = w.windows();
  d.window_offsets = mwc::device_buffer<uint64_t>(w.window_offsets.size());
  d.window_offsets.copy_from_host(w.window_offsets.data(), w.window_offsets.size(), bench_stream);
  d.ranges = mwc::device_buffer<uint2>(w.features.size());
  d.window_hits = mwc::device_buffer<uint64_t>(d.windows + 1);
  d.check = mwc::device_buffer<unsigned long long>(2);
  mwc::check(cudaStreamSynchronize(bench_stream), "uploading the benchmark's data");

  // The ceiling over as many bytes as the tables take (at least 1 GiB).
  const uint64_t table_bytes = metawarp::index::lookup_capacity(d.features) * 8;
  const Ceilings c = metawarp::bench::measure_ceilings(
      std::max<uint64_t>(uint64_t(1) << 30, (table_bytes + (1 << 20)) & ~uint64_t((1 << 20) - 1)));
  std::printf("ceiling as GB/s: %.1f (random 32-byte sectors)\n", c.sector_reads * 32 / 1e9);

  Runner run(d, c, e, o.repeat);
  bench_hand_written(d, run);
  bench_app(d, run);
  for (double load : {0.8, 0.9}) {
    bench_single<mwt::LinearProbing, 1>("single packed LP", load, d, run);
    bench_single<mwt::LinearProbing, 2>("single packed LP", load, d, run);
    bench_single<mwt::LinearProbing, 4>("single packed LP", load, d, run);
    bench_single<mwt::DoubleHashing, 1>("single packed DH", load, d, run);
    bench_single<mwt::DoubleHashing, 2>("single packed DH", load, d, run);
    bench_single<mwt::DoubleHashing, 4>("single packed DH", load, d, run);
    bench_cuckoo(load, d, run);
  }
  for (double load : {4.0, 8.0}) {
    bench_csr<1>(load, d, run);
    bench_csr<4>(load, d, run);
  }
  return run.failed() ? 1 : 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_lookup: %s\n", e.what());
  return 1;
}
