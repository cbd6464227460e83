// Throughput of the GPU hash tables in the WarpCore paper's setups, next to
// the device's own ceilings measured in the same run.
//
//   bench_tables                       everything at 2^28 pairs (needs ~20 GB)
//   bench_tables --log2 24 --only single,ceilings --loads 0.8,0.9
//   bench_tables --n 100000000 --only single --loads 0.8,0.9
//   bench_tables --n 100000000 --only single,cuckoo,iceberg,portable --loads 0.8,0.9,0.95,0.99 --quick
//   bench_tables --n 100000000 --only multi,csr --values-per-key 1,4,16,64,256,1024 --quick
//
// Output: one line per measurement, "G/s" = 10^9 operations per second, and
// the fraction of the matching ceiling (inserts vs random 8-byte CAS/s,
// finds/retrievals vs random 32-byte sector reads/s).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/tables/all.cuh"
#include "metawarp/tables/csr_intersection.cuh"

namespace mwc = metawarp::cuda;
namespace mwt = metawarp::tables;
// Every timed call names this stream: the legacy default stream, which orders
// with the unqualified kernel launches and cudaDeviceSynchronize used here.
const cudaStream_t bench_stream = cudaStreamLegacy;
using std::uint32_t;
using std::uint64_t;

namespace {

struct Options {
  uint64_t n = uint64_t(1) << 28;
  std::vector<double> loads = {0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.97};
  std::vector<uint32_t> values_per_key = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  std::set<std::string> only;      // empty = all sections
  std::set<std::string> variants;  // section `variants`: empty = all candidates
  bool quick = false;              // fewer configurations
  bool wants(const std::string& section) const { return only.empty() || only.count(section); }
  bool wants_variant(const std::string& name) const {
    return variants.empty() || variants.count(name);
  }
};

struct Ceilings {
  double sector_reads = 0;  // random 32-byte sector reads per second
  double cas = 0;           // random 8-byte CAS per second
  double copy_bytes = 0;    // device-to-device copy, bytes read+written per second
};

// Seconds taken by `work` (best of `reps`), `setup` run untimed before each.
double time_best(const std::function<void()>& work, const std::function<void()>& setup = {},
                 int reps = 2) {
  mwc::event start, stop;
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    if (setup) setup();
    mwc::check(cudaDeviceSynchronize(), "benchmark setup");
    start.record(bench_stream);
    work();
    stop.record(bench_stream);
    stop.synchronize();
    best = std::min(best, double(stop.elapsed_ms_since(start)) / 1e3);
  }
  return best;
}

void report(const std::string& what, double ops, double seconds, double ceiling,
            const char* ceiling_name) {
  const double rate = ops / seconds;
  std::printf("%-64s %8.3f G/s  %5.1f%% of %s\n", what.c_str(), rate / 1e9,
              100.0 * rate / ceiling, ceiling_name);
  std::fflush(stdout);
}

// ------------------------------------------------------------------- ceilings

__global__ void random_sector_reads(const uint4* data, uint64_t sectors, uint64_t n,
                                    unsigned long long* sink) {
  unsigned long long acc = 0;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t s = mwt::fmix64(i) % sectors;
    const uint4 a = __ldcg(data + 2 * s);  // both halves of one 32-byte sector
    const uint4 b = __ldcg(data + 2 * s + 1);
    acc += a.x ^ b.w;
  }
  if (acc == 0x12345) atomicAdd(sink, acc);  // keep the loads alive
}

__global__ void random_cas(unsigned long long* data, uint64_t words, uint64_t n) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t w = mwt::fmix64(i) % words;
    atomicCAS(data + w, 0ull, i);
  }
}

Ceilings measure_ceilings(uint64_t bytes) {
  Ceilings c;
  mwc::device_buffer<uint4> data(bytes / 16);
  data.fill_bytes(0, bench_stream);
  mwc::device_buffer<unsigned long long> sink(1);
  const uint64_t ops = uint64_t(1) << 28;
  const unsigned blocks = 132 * 16;
  double t = time_best([&] {
    random_sector_reads<<<blocks, 256>>>(data.data(), bytes / 32, ops, sink.data());
  });
  c.sector_reads = ops / t;
  report("ceiling: random 32-byte sector reads (" + std::to_string(bytes >> 20) + " MiB)", ops, t,
         c.sector_reads, "itself");
  t = time_best([&] {
    random_cas<<<blocks, 256>>>(reinterpret_cast<unsigned long long*>(data.data()), bytes / 8, ops);
  }, [&] { data.fill_bytes(0, bench_stream); });
  c.cas = ops / t;
  report("ceiling: random 8-byte CAS", ops, t, c.cas, "itself");
  mwc::device_buffer<unsigned char> copy(bytes / 2);
  t = time_best([&] {
    mwc::check(cudaMemcpyAsync(copy.data(), data.data(), bytes / 2, cudaMemcpyDeviceToDevice),
               "D2D copy");
  });
  c.copy_bytes = 2.0 * (bytes / 2) / t;
  std::printf("%-64s %8.1f GB/s (read + write)\n", "ceiling: device-to-device copy",
              c.copy_bytes / 1e9);
  return c;
}

// --------------------------------------------------------------- single value

template <class K>
__global__ void make_unique_keys(K* keys, uint64_t n, uint64_t offset) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    // fmix is a bijection, so distinct inputs give distinct keys.
    if constexpr (sizeof(K) == 4) keys[i] = mwt::fmix32(uint32_t(i + offset));
    else keys[i] = mwt::fmix64(i + offset);
  }
}

template <class T>
__global__ void make_iota(T* values, uint64_t n) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    values[i] = T(i);
  }
}

// n unique keys to insert (hits), n others (misses), values and an output.
template <class K, class V>
struct UniqueWorkload {
  mwc::device_buffer<K> hits, misses;
  mwc::device_buffer<V> values, out;
  explicit UniqueWorkload(uint64_t n) : hits(n), misses(n), values(n), out(n) {
    make_unique_keys<<<4096, 256>>>(hits.data(), n, 0);
    make_unique_keys<<<4096, 256>>>(misses.data(), n, n);
    make_iota<<<4096, 256>>>(values.data(), n);
  }
};

template <class Table>
void bench_single(const std::string& name, const Options& o, const Ceilings& c) {
  using K = typename Table::key_type;
  using V = typename Table::value_type;
  const uint64_t n = o.n;
  const UniqueWorkload<K, V> w(n);
  const auto &hits = w.hits, &misses = w.misses, &values = w.values, &out = w.out;
  for (double load : o.loads) {
    Table table(uint64_t(double(n) / load), {}, bench_stream);
    char label[160];
    std::snprintf(label, sizeof label, "%s  load %.2f", name.c_str(), double(n) / table.capacity());
    const double t_insert = time_best([&] { table.insert(hits.data(), values.data(), n, bench_stream); },
                                      [&] { table.clear(bench_stream); });
    const auto status = table.pop_status(bench_stream);
    if (status.has_error()) std::printf("  (insert reported errors: bits %x)\n", status.bits());
    report(std::string(label) + "  insert", n, t_insert, c.cas, "CAS");
    const double t_hit = time_best([&] { table.find(hits.data(), n, out.data(), {}, bench_stream); });
    report(std::string(label) + "  find hit", n, t_hit, c.sector_reads, "sector reads");
    const double t_miss = time_best([&] { table.find(misses.data(), n, out.data(), {}, bench_stream); });
    report(std::string(label) + "  find miss", n, t_miss, c.sector_reads, "sector reads");
  }
}

// ---------------------------------------------------------------- multi value

// Pair i (in a scrambled order) gets key fmix32(i / v) and value i, so every
// key has v values and the copies of a key are spread over the input.
template <class V>
__global__ void make_multi_pairs(uint32_t* keys, V* values, uint64_t n, uint32_t v) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t j = (i * 0x9e3779b1ull) % n;  // bijection when n is odd-coprime (power of 2)
    keys[i] = mwt::fmix32(uint32_t(j / v));
    values[i] = V(j);
  }
}

template <class Table, class Make>
void bench_multi(const std::string& name, const Options& o, const Ceilings& c, Make make_table) {
  using V = typename Table::value_type;
  const uint64_t n = o.n;
  mwc::device_buffer<uint32_t> keys(n);
  mwc::device_buffer<V> values(n);
  for (uint32_t v : o.values_per_key) {
    make_multi_pairs<<<4096, 256>>>(keys.data(), values.data(), n, v);
    const uint64_t distinct = (n + v - 1) / v;
    mwc::device_buffer<uint32_t> queries(distinct);
    make_unique_keys<<<4096, 256>>>(queries.data(), distinct, 0);
    Table table = make_table(n, distinct);
    const double t_insert = time_best([&] { table.insert(keys.data(), values.data(), n, bench_stream); },
                                      [&] { table.clear(bench_stream); }, 1);
    const auto status = table.pop_status(bench_stream);
    if (status.has_error()) std::printf("  (insert reported errors: bits %x)\n", status.bits());
    char label[160];
    std::snprintf(label, sizeof label, "%s  %4u values/key", name.c_str(), v);
    report(std::string(label) + "  insert", n, t_insert, c.cas, "CAS");
    mwc::device_buffer<uint64_t> offsets(distinct + 1);
    mwc::device_buffer<V> out(n);
    uint64_t total = 0;
    const double t_retrieve = time_best([&] {
      total = table.retrieve_offsets(queries.data(), distinct, offsets.data(), bench_stream);
      table.retrieve(queries.data(), distinct, offsets.data(), out.data(), bench_stream);
    }, {}, 1);
    if (total != n) std::printf("  (retrieved %llu of %llu values)\n", (unsigned long long)total,
                                (unsigned long long)n);
    report(std::string(label) + "  retrieve (values)", n, t_retrieve, c.sector_reads,
           "sector reads");
    // Where a retrieval's time goes: the dry run (count + scan) alone.
    const double t_count = time_best([&] {
      table.retrieve_offsets(queries.data(), distinct, offsets.data(), bench_stream);
    }, {}, 1);
    report(std::string(label) + "  of which count + scan (keys)", distinct, t_count, c.sector_reads,
           "sector reads");
  }
}

// ------------------------------------------- explicit-stream single value

// `make(capacity)` builds a table of at least `capacity` slots; inserts the
// first load * capacity() unique keys (at most n) so the load is the one asked.
template <class Table, class Make>
void bench_single_stream(const std::string& name, const Options& o, const Ceilings& c, Make make) {
  using K = typename Table::key_type;
  using V = typename Table::value_type;
  const uint64_t n = o.n;
  const UniqueWorkload<K, V> w(n);
  const auto &hits = w.hits, &misses = w.misses, &values = w.values, &out = w.out;
  for (double load : o.loads) {
    Table table = make(uint64_t(double(n) / load));
    const uint64_t pairs = std::min<uint64_t>(n, uint64_t(load * double(table.capacity())));
    char label[160];
    std::snprintf(label, sizeof label, "%s  load %.2f", name.c_str(),
                  double(pairs) / double(table.capacity()));
    const double t_insert = time_best([&] { table.insert(hits.data(), values.data(), pairs, bench_stream); },
                                      [&] { table.clear(bench_stream); });
    const auto status = table.pop_status(bench_stream);
    if (status.has_error()) std::printf("  (insert reported errors: bits %x)\n", status.bits());
    report(std::string(label) + "  insert", pairs, t_insert, c.cas, "CAS");
    const double t_hit = time_best([&] {
      table.find(hits.data(), pairs, out.data(), V(0), bench_stream);
    });
    report(std::string(label) + "  find hit", pairs, t_hit, c.sector_reads, "sector reads");
    const double t_miss = time_best([&] {
      table.find(misses.data(), pairs, out.data(), V(0), bench_stream);
    });
    report(std::string(label) + "  find miss", pairs, t_miss, c.sector_reads, "sector reads");
  }
}

// A bucketed table (cuckoo or iceberg) with or without its duplicate checks.
template <class Table, class TableOptions>
void bench_bucketed(const std::string& name, const Options& o, const Ceilings& c, bool checked) {
  TableOptions options;
  options.unique_keys_checked = checked;
  bench_single_stream<Table>(
      name + " u32/u32 B=" + std::to_string(Table::group_size) +
          (checked ? " checked" : " unique-input"),
      o, c, [&](uint64_t capacity) { return Table(capacity, options, bench_stream); });
}

template <int B>
void bench_cuckoo(const Options& o, const Ceilings& c, bool checked) {
  bench_bucketed<mwt::BucketedCuckooTable<uint32_t, uint32_t, B>, mwt::CuckooOptions>("bcht", o, c,
                                                                                     checked);
}

template <int B>
void bench_iceberg(const Options& o, const Ceilings& c, bool checked) {
  bench_bucketed<mwt::IcebergTable<uint32_t, uint32_t, B>, mwt::IcebergOptions>("iceberg", o, c,
                                                                               checked);
}

template <int W>
void bench_portable(const Options& o, const Ceilings& c) {
  using Table = mwt::DevicePortableMap<uint32_t, uint32_t, W>;
  mwt::PortableMapOptions options;
  options.max_load_factor = 1.0;  // no growth inside the timed inserts
  bench_single_stream<Table>("portable u32/u32 W=" + std::to_string(W), o, c,
                             [&](uint64_t capacity) {
    // The power of two at or below the request, so the load is the one asked.
    uint64_t pow2 = 1;
    while (pow2 * 2 <= capacity) pow2 *= 2;
    return Table(pow2, options, bench_stream);
  });
}

// ----------------------------------------------------------------- CSR table

// HashGraph on the multi-value workload: build (scatter and binned),
// retrieval of every distinct key, and the intersection probe against a
// table of the distinct keys (its build included, as in the paper).
void bench_csr(const Options& o, const Ceilings& c, mwt::CsrBuildMethod method, double load) {
  using Csr = mwt::CsrTable<uint32_t, uint32_t>;
  const uint64_t n = o.n;
  mwc::device_buffer<uint32_t> keys(n), values(n);
  const char* method_name = method == mwt::CsrBuildMethod::binned    ? "binned"
                            : method == mwt::CsrBuildMethod::sorted ? "sorted"
                                                                    : "scatter";
  for (uint32_t v : o.values_per_key) {
    make_multi_pairs<<<4096, 256>>>(keys.data(), values.data(), n, v);
    const uint64_t distinct = (n + v - 1) / v;
    mwc::device_buffer<uint32_t> queries(distinct), query_values(distinct);
    make_multi_pairs<<<4096, 256>>>(queries.data(), query_values.data(), distinct, 1);
    mwt::CsrOptions options;
    options.method = method;
    options.load_factor = load;
    char label[160];
    std::snprintf(label, sizeof label, "csr %s lf %.1f u32/u32  %4u values/key", method_name, load, v);
    std::unique_ptr<Csr> table;
    const double t_build = time_best([&] {
      table = std::make_unique<Csr>(keys.data(), values.data(), n, options, bench_stream);
    }, [&] { table.reset(); }, 1);
    report(std::string(label) + "  build", n, t_build, c.cas, "CAS");
    mwc::device_buffer<uint64_t> offsets(distinct + 1);
    mwc::device_buffer<uint32_t> out(n);
    uint64_t total = 0;
    const double t_retrieve = time_best([&] {
      total = table->retrieve_offsets(queries.data(), distinct, offsets.data(), bench_stream);
      table->retrieve(queries.data(), distinct, offsets.data(), out.data(), bench_stream);
    }, {}, 1);
    if (total != n) std::printf("  (retrieved %llu of %llu values)\n", (unsigned long long)total,
                                (unsigned long long)n);
    report(std::string(label) + "  retrieve (values)", n, t_retrieve, c.sector_reads,
           "sector reads");
    mwt::CsrOptions same = options;
    same.num_vertices = table->num_vertices();
    uint64_t join = 0;
    const double t_probe = time_best([&] {
      const Csr probe(queries.data(), query_values.data(), distinct, same, bench_stream);
      join = mwt::csr_join_size(*table, probe, bench_stream);
    }, {}, 1);
    if (join != n) std::printf("  (join size %llu, expected %llu)\n", (unsigned long long)join,
                               (unsigned long long)n);
    report(std::string(label) + "  intersection probe (values)", n, t_probe, c.sector_reads,
           "sector reads");
  }
}

// -------------------------------------------------------------------- bloom

void bench_bloom(uint64_t bytes, const Options& o, const Ceilings& c) {
  const uint64_t n = o.n;
  mwc::device_buffer<uint32_t> keys(n);
  make_unique_keys<<<4096, 256>>>(keys.data(), n, 0);
  mwc::device_buffer<bool> out(n);
  mwt::BloomFilter<uint32_t> filter(bytes * 8, 8, 0, bench_stream);
  const std::string label = "bloom " + std::to_string(bytes >> 20) + " MiB k=8";
  const double t_add = time_best([&] { filter.insert(keys.data(), n, bench_stream); }, [&] { filter.clear(bench_stream); });
  report(label + "  add", n, t_add, c.cas, "CAS");
  const double t_query = time_best([&] { filter.contains(keys.data(), n, out.data(), bench_stream); });
  report(label + "  contains", n, t_query, c.sector_reads, "sector reads");
}

// ------------------------------------------------- candidate variants (tuning)
namespace cg = cooperative_groups;
//
// Each variant times one candidate against the library's own path on the same
// workload and table, so one run shows which wins. Selected with --variant
// (default: all) inside the `variants` section.

// The library's launch shape (one group per item, 256 threads, up to 2^20
// blocks) or a persistent grid of `blocks` blocks looping grid-stride.
template <int G, class Op>
__global__ void variant_group_kernel(uint64_t n, Op op) {
  const auto group = cg::tiled_partition<G>(cg::this_thread_block());
  const uint64_t first = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / G;
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x / G;
  for (uint64_t i = first; i < n; i += stride) op(group, i);
}

struct Geometry {
  unsigned blocks = 0;  // 0: the library's (as many as items, capped at 2^20)
  unsigned threads = 256;
};

template <int G, class Op>
void launch_variant(uint64_t n, Geometry geo, Op op) {
  const unsigned blocks = geo.blocks != 0 ? geo.blocks : mwc::blocks_for(n, geo.threads / G);
  variant_group_kernel<G><<<blocks, geo.threads, 0, bench_stream>>>(n, op);
  mwc::check_launch("bench variant");
}

// The packed layout as it was before this round: try_claim reads the slot
// again before its CAS (the variant "reload").
template <class K, class V>
struct ReloadingPackedLayout : mwt::PackedLayout<K, V> {
  using base = mwt::PackedLayout<K, V>;
  using typename base::word_type;
  __device__ __forceinline__ bool try_claim(uint64_t i, K expected, K key, V value,
                                            bool store_value = true) const {
    if (!store_value) value = V{};
    const word_type seen = mwt::detail::volatile_load(this->words + i);
    if (base::key_of(seen) != expected) return false;
    return mwt::detail::atomic_cas(this->words + i, seen, base::pack(key, value)) == seen;
  }
  class Storage {
   public:
    explicit Storage(uint64_t capacity) : words_(capacity) {}
    ReloadingPackedLayout view() const { return ReloadingPackedLayout{{words_.data()}}; }
    uint64_t bytes() const { return words_.size_bytes(); }

   private:
    mwc::device_buffer<word_type> words_;
  };
};

// 16-byte loads of two packed slots: volatile (as the library), L2-only
// (ld.global.cg) or through the read-only path (ld.global.nc; valid only
// while nothing writes the table, as in a bulk find).
enum class Load { volatile_, cg, nc };

template <Load L>
__device__ __forceinline__ ulonglong2 load_two_slots(const uint64_t* p) {
  ulonglong2 r;
  if constexpr (L == Load::volatile_) {
    asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(r.x), "=l"(r.y) : "l"(p));
  } else if constexpr (L == Load::cg) {
    r = __ldcg(reinterpret_cast<const ulonglong2*>(p));
  } else {
    r = __ldg(reinterpret_cast<const ulonglong2*>(p));
  }
  return r;
}

// BCHT B=8 find with a tile of T threads (T = 4: one 16-byte load per lane;
// T = 1: one thread reads the 64-byte bucket with four 16-byte loads). Same
// walk as the library's: h0, h1, h2, stop at a bucket with an empty slot.
template <int T, Load L, class Ref>
__device__ bool bcht8_find(const cg::thread_block_tile<T>& g, const Ref& r, uint32_t key,
                           uint32_t& value_out) {
  using Layout = mwt::PackedLayout<uint32_t, uint32_t>;
  using S = mwt::KeySentinels<uint32_t>;
  constexpr int per_lane = 8 / T;  // slots per lane
  if (!S::is_valid(key)) return false;
  const int lane = g.thread_rank();
  for (int which = 0; which < 3; ++which) {
    const uint64_t* bucket = r.layout.words + uint64_t(r.hashes.bucket(which, key)) * 8;
    uint64_t w[per_lane];
#pragma unroll
    for (int j = 0; j < per_lane; j += 2) {
      const ulonglong2 two = load_two_slots<L>(bucket + lane * per_lane + j);
      w[j] = two.x;
      w[j + 1] = two.y;
    }
    int hit = -1;
    bool empty = false;
#pragma unroll
    for (int j = per_lane - 1; j >= 0; --j) {
      const uint32_t k = Layout::key_of(w[j]);
      if (k == key) hit = j;
      empty |= k == S::empty;
    }
    if constexpr (T == 1) {
      if (hit >= 0) {
#pragma unroll
        for (int j = 0; j < per_lane; ++j) {
          if (j == hit) value_out = Layout::value_of(w[j]);
        }
        return true;
      }
      if (empty) return false;
    } else {
      const unsigned lanes = g.ballot(hit >= 0);
      if (lanes) {
        const int owner = __ffs(lanes) - 1;
        uint64_t mine = 0;
#pragma unroll
        for (int j = 0; j < per_lane; ++j) {
          if (j == hit) mine = w[j];
        }
        value_out = Layout::value_of(g.shfl(mine, owner));
        return true;
      }
      if (g.any(empty)) return false;
    }
  }
  return false;
}

template <int T, Load L, class Ref>
void launch_bcht8_find(const Ref& r, const uint32_t* keys, uint64_t n, uint32_t* out) {
  launch_variant<T>(n, Geometry{}, [=] __device__(const cg::thread_block_tile<T>& g, uint64_t i) {
    uint32_t v = 0;
    bcht8_find<T, L>(g, r, keys[i], v);
    if (g.thread_rank() == 0) out[i] = v;
  });
}

void report_variant(const std::string& what, uint64_t ops, double seconds, double ceiling,
                    const char* ceiling_name) {
  report("variant " + what, ops, seconds, ceiling, ceiling_name);
}

// Checks a variant's find output against the library's (the bench checks its results).
void expect_same(const mwc::device_buffer<uint32_t>& a, const mwc::device_buffer<uint32_t>& b,
                 uint64_t n, const std::string& what) {
  std::vector<uint32_t> ha(n), hb(n);
  a.copy_to_host(ha.data(), n, bench_stream);
  b.copy_to_host(hb.data(), n, bench_stream);
  mwc::check(cudaStreamSynchronize(bench_stream), "variant check");
  for (uint64_t i = 0; i < n; ++i) {
    if (ha[i] != hb[i]) {
      std::printf("  (variant %s differs from the library at item %llu: %u vs %u)\n", what.c_str(),
                  (unsigned long long)i, ha[i], hb[i]);
      return;
    }
  }
}

unsigned persistent_blocks(unsigned threads) {
  int device = 0, sms = 0;
  mwc::check(cudaGetDevice(&device), "cudaGetDevice");
  mwc::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
  return unsigned(sms) * (2048 / threads);
}

// Single value, packed, double hashing, g4: the library path against
// the pre-round path (reload before the CAS, second read of a hit's value)
// and against a persistent grid.
void variants_single(const Options& o, const Ceilings& c) {
  using P = mwt::DoubleHashing;
  using H = mwt::MurmurHasher;
  using Table = mwt::SingleValueHashTable<uint32_t, uint32_t, mwt::PackedLayout<uint32_t, uint32_t>,
                                          P, H, 4>;
  using Old = mwt::SingleValueHashTable<uint32_t, uint32_t, ReloadingPackedLayout<uint32_t, uint32_t>,
                                        P, H, 4>;
  const uint64_t n = o.n;
  const UniqueWorkload<uint32_t, uint32_t> w(n);
  mwc::device_buffer<uint32_t> check(n);
  const uint32_t *hits = w.hits.data(), *misses = w.misses.data(), *values = w.values.data();
  uint32_t* out = w.out.data();
  uint32_t* checked = check.data();
  for (double load : o.loads) {
    Table table(uint64_t(double(n) / load), {}, bench_stream);
    Old old(uint64_t(double(n) / load), {}, bench_stream);
    char label[160];
    std::snprintf(label, sizeof label, "single packed DH g4 load %.2f", double(n) / table.capacity());
    const std::string at = label;
    const auto r = table.ref();
    const auto ro = old.ref();
    for (unsigned threads : {128u, 256u, 512u}) {
      if (!o.wants_variant("sv-persistent")) break;
      const Geometry geo{persistent_blocks(threads), threads};
      const std::string name = "sv-persistent" + std::to_string(threads);
      double t = time_best([&] {
        launch_variant<4>(n, geo, [=] __device__(const cg::thread_block_tile<4>& g, uint64_t i) {
          r.insert(g, hits[i], values[i]);
        });
      }, [&] { table.clear(bench_stream); });
      report_variant(name + " " + at + " insert", n, t, c.cas, "CAS");
      for (const bool hit : {true, false}) {
        const uint32_t* keys = hit ? hits : misses;
        t = time_best([&] {
          launch_variant<4>(n, geo, [=] __device__(const cg::thread_block_tile<4>& g, uint64_t i) {
            uint32_t v = 0;
            r.find(g, keys[i], v);
            if (g.thread_rank() == 0) out[i] = v;
          });
        });
        report_variant(name + " " + at + (hit ? " find hit" : " find miss"), n, t, c.sector_reads,
                       "sector reads");
      }
    }
    // The library path (insert with the new claim, find with the value from the window).
    double t = time_best([&] { table.insert(w.hits.data(), w.values.data(), n, bench_stream); },
                         [&] { table.clear(bench_stream); });
    report_variant("sv-lib " + at + " insert", n, t, c.cas, "CAS");
    t = time_best([&] { table.find(w.hits.data(), n, out, 0u, bench_stream); });
    report_variant("sv-lib " + at + " find hit", n, t, c.sector_reads, "sector reads");
    if (o.wants_variant("sv-reload")) {
      t = time_best([&] { old.insert(w.hits.data(), w.values.data(), n, bench_stream); },
                    [&] { old.clear(bench_stream); });
      report_variant("sv-reload " + at + " insert", n, t, c.cas, "CAS");
      t = time_best([&] {
        launch_variant<4>(n, Geometry{}, [=] __device__(const cg::thread_block_tile<4>& g,
                                                        uint64_t i) {
          const uint64_t slot = ro.core.find_slot(g, hits[i]);
          const uint32_t v = slot == mwt::no_slot ? 0u : ro.core.layout.load_value(slot);
          if (g.thread_rank() == 0) checked[i] = v;
        });
      });
      report_variant("sv-reload " + at + " find hit", n, t, c.sector_reads, "sector reads");
      expect_same(w.out, check, n, "sv-reload");
    }
  }
}

// Bucketed cuckoo B = 8 (unique input): library path against the pre-round
// find (second read of the value), smaller tiles with 16-byte loads, load
// flavours, and a persistent grid.
void variants_cuckoo(const Options& o, const Ceilings& c) {
  using Table = mwt::BucketedCuckooTable<uint32_t, uint32_t, 8>;
  const uint64_t n = o.n;
  const UniqueWorkload<uint32_t, uint32_t> w(n);
  mwc::device_buffer<uint32_t> check(n);
  const uint32_t *hits = w.hits.data(), *misses = w.misses.data(), *values = w.values.data();
  uint32_t* out = check.data();
  mwt::CuckooOptions options;
  options.unique_keys_checked = false;
  for (double load : o.loads) {
    Table table(uint64_t(double(n) / load), options, bench_stream);
    const uint64_t pairs = std::min<uint64_t>(n, uint64_t(load * double(table.capacity())));
    char label[160];
    std::snprintf(label, sizeof label, "bcht B=8 load %.2f", double(pairs) / table.capacity());
    const std::string at = label;
    const auto r = table.ref();
    double t = time_best([&] { table.insert(w.hits.data(), w.values.data(), pairs, bench_stream); },
                         [&] { table.clear(bench_stream); });
    report_variant("bcht-lib " + at + " insert", pairs, t, c.cas, "CAS");
    if (table.pop_status(bench_stream).has_error()) std::printf("  (insert reported errors)\n");
    t = time_best([&] { table.find(w.hits.data(), pairs, w.out.data(), 0u, bench_stream); });
    report_variant("bcht-lib " + at + " find hit", pairs, t, c.sector_reads, "sector reads");
    t = time_best([&] { table.find(w.misses.data(), pairs, check.data(), 0u, bench_stream); });
    report_variant("bcht-lib " + at + " find miss", pairs, t, c.sector_reads, "sector reads");

    const auto both = [&](const std::string& name, auto&& launch) {
      if (!o.wants_variant(name)) return;
      double th = time_best([&] { launch(hits); });
      expect_same(w.out, check, pairs, name);
      report_variant(name + " " + at + " find hit", pairs, th, c.sector_reads, "sector reads");
      th = time_best([&] { launch(misses); });
      report_variant(name + " " + at + " find miss", pairs, th, c.sector_reads, "sector reads");
    };
    both("bcht-reload", [&](const uint32_t* keys) {
      launch_variant<8>(pairs, Geometry{}, [=] __device__(const cg::thread_block_tile<8>& g,
                                                          uint64_t i) {
        const uint64_t slot = r.find_slot(g, keys[i]);
        const uint32_t v = slot == mwt::no_slot ? 0u : r.layout.load_value(slot);
        if (g.thread_rank() == 0) out[i] = v;
      });
    });
    both("bcht-t4", [&](const uint32_t* k) { launch_bcht8_find<4, Load::volatile_>(r, k, pairs, out); });
    both("bcht-t4cg", [&](const uint32_t* k) { launch_bcht8_find<4, Load::cg>(r, k, pairs, out); });
    both("bcht-t4nc", [&](const uint32_t* k) { launch_bcht8_find<4, Load::nc>(r, k, pairs, out); });
    both("bcht-t2", [&](const uint32_t* k) { launch_bcht8_find<2, Load::volatile_>(r, k, pairs, out); });
    both("bcht-t1", [&](const uint32_t* k) { launch_bcht8_find<1, Load::volatile_>(r, k, pairs, out); });
    both("bcht-t1nc", [&](const uint32_t* k) { launch_bcht8_find<1, Load::nc>(r, k, pairs, out); });
    if (o.wants_variant("bcht-persistent")) {
      const Geometry geo{persistent_blocks(256), 256};
      t = time_best([&] {
        launch_variant<8>(pairs, geo, [=] __device__(const cg::thread_block_tile<8>& g, uint64_t i) {
          r.insert(g, hits[i], values[i]);
        });
      }, [&] { table.clear(bench_stream); });
      report_variant("bcht-persistent " + at + " insert", pairs, t, c.cas, "CAS");
      t = time_best([&] {
        launch_variant<8>(pairs, geo, [=] __device__(const cg::thread_block_tile<8>& g, uint64_t i) {
          uint32_t v = 0;
          r.find(g, hits[i], v);
          if (g.thread_rank() == 0) out[i] = v;
        });
      });
      expect_same(w.out, check, pairs, "bcht-persistent");
      report_variant("bcht-persistent " + at + " find hit", pairs, t, c.sector_reads, "sector reads");
    }
  }
}

// What bounds a Bloom add on a large filter: the same hashing and random
// sector, with exactly A 64-bit atomicOr per key (A = 1, 2, 4). The filter
// (k = 8) issues about 3.6 per key (4 * (1 - (3/4)^8) words hold a bit).
template <int A>
__global__ void bloom_atomics(unsigned long long* blocks, uint64_t num_blocks, const uint32_t* keys,
                              uint64_t n, mwt::MurmurHasher hasher) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t h = hasher(keys[i]);
    unsigned long long* block = blocks + 4 * (((h >> 32) * num_blocks) >> 32);
#pragma unroll
    for (int a = 0; a < A; ++a) atomicOr(block + a, 1ull << ((h >> (6 * a)) & 63));
  }
}

void variants_bloom(const Options& o, const Ceilings& c) {
  if (!o.wants_variant("bloom-atomics")) return;
  const uint64_t n = o.n;
  const uint64_t bytes = uint64_t(2) << 30;
  mwc::device_buffer<uint32_t> keys(n);
  make_unique_keys<<<4096, 256>>>(keys.data(), n, 0);
  mwc::device_buffer<unsigned long long> words(bytes / 8);
  const uint64_t blocks = bytes / 32;
  const unsigned grid = mwc::blocks_for(n, 256);
  const auto run = [&](auto a) {
    constexpr int A = decltype(a)::value;
    const double t = time_best([&] {
      bloom_atomics<A><<<grid, 256, 0, bench_stream>>>(words.data(), blocks, keys.data(), n,
                                                      mwt::MurmurHasher(0));
    }, [&] { words.fill_bytes(0, bench_stream); });
    report_variant("bloom-atomics 2048 MiB " + std::to_string(A) + " atomicOr/key", n, t, c.cas,
                   "CAS");
  };
  run(std::integral_constant<int, 1>{});
  run(std::integral_constant<int, 2>{});
  run(std::integral_constant<int, 4>{});
}

void bench_variants(const Options& o, const Ceilings& c) {
  variants_single(o, c);
  variants_cuckoo(o, c);
  variants_bloom(o, c);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
  return parts;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument("missing value after " + arg);
      return argv[++i];
    };
    if (arg == "--n") o.n = std::stoull(next());
    else if (arg == "--log2") o.n = uint64_t(1) << std::stoul(next());
    else if (arg == "--loads") {
      o.loads.clear();
      for (const auto& p : split(next())) o.loads.push_back(std::stod(p));
    } else if (arg == "--values-per-key") {
      o.values_per_key.clear();
      for (const auto& p : split(next())) o.values_per_key.push_back(std::stoul(p));
    } else if (arg == "--only") {
      for (const auto& p : split(next())) o.only.insert(p);
    } else if (arg == "--variant") {
      for (const auto& p : split(next())) o.variants.insert(p);
    } else if (arg == "--quick") o.quick = true;
    else if (arg == "--help" || arg == "-h") {
      std::printf("bench_tables [--n N | --log2 L] [--loads a,b] [--values-per-key a,b]\n"
                  "             [--only ceilings,single,single64,multi,bloom,cuckoo,iceberg,portable,csr,\n"
                  "                     variants]\n"
                  "             [--variant sv-persistent,sv-reload,bcht-reload,bcht-t4,bcht-t4cg,\n"
                  "                        bcht-t4nc,bcht-t2,bcht-t1,bcht-t1nc,bcht-persistent,\n"
                  "                        bloom-atomics]   (candidates of the variants section)\n"
                  "             [--quick]\n");
      std::exit(0);
    } else throw std::invalid_argument("unknown option " + arg);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  cudaDeviceProp prop{};
  mwc::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("device: %s, %d SMs, %.1f GiB; n = %llu\n", prop.name, prop.multiProcessorCount,
              prop.totalGlobalMem / double(1 << 30), (unsigned long long)o.n);

  const Ceilings c = measure_ceilings(uint64_t(2) << 30);

  using P = mwt::DoubleHashing;
  using L = mwt::LinearProbing;
  using H = mwt::MurmurHasher;
  if (o.wants("single")) {
    using Packed = mwt::PackedLayout<uint32_t, uint32_t>;
    bench_single<mwt::SingleValueHashTable<uint32_t, uint32_t, Packed, P, H, 4>>(
        "single u32/u32 packed DH g4", o, c);
    bench_single<mwt::SingleValueHashTable<uint32_t, uint32_t, Packed, P, H, 8>>(
        "single u32/u32 packed DH g8", o, c);
    if (!o.quick) {
      bench_single<mwt::SingleValueHashTable<uint32_t, uint32_t, Packed, P, H, 2>>(
          "single u32/u32 packed DH g2", o, c);
      bench_single<mwt::SingleValueHashTable<uint32_t, uint32_t, Packed, P, H, 16>>(
          "single u32/u32 packed DH g16", o, c);
      bench_single<mwt::SingleValueHashTable<uint32_t, uint32_t, Packed, L, H, 4>>(
          "single u32/u32 packed LP g4", o, c);
      bench_single<mwt::SingleValueHashTable<uint32_t, uint32_t,
                                             mwt::SoaLayout<uint32_t, uint32_t>, P, H, 4>>(
          "single u32/u32 soa DH g4", o, c);
    }
  }
  if (o.wants("single64")) {
    bench_single<mwt::SingleValueHashTable<uint64_t, uint64_t,
                                           mwt::AosLayout<uint64_t, uint64_t>, P, H, 4>>(
        "single u64/u64 aos DH g4", o, c);
    bench_single<mwt::SingleValueHashTable<uint64_t, uint64_t,
                                           mwt::SoaLayout<uint64_t, uint64_t>, P, H, 4>>(
        "single u64/u64 soa DH g4", o, c);
  }
  if (o.wants("multi")) {
    using Multi = mwt::MultiValueHashTable<uint32_t, uint32_t>;
    bench_multi<Multi>("multi u32/u32 packed g8", o, c, [](uint64_t pairs, uint64_t) {
      return Multi(uint64_t(pairs / 0.8), {}, bench_stream);
    });
    using Bucket = mwt::BucketListHashTable<uint32_t, uint32_t>;
    bench_multi<Bucket>("bucket-list u32/u32 g8", o, c, [](uint64_t pairs, uint64_t keys) {
      mwt::BucketListOptions options;
      options.first_bucket_size = 1;
      options.growth_factor = 1.1;
      options.max_bucket_size = 1024;
      // Exact pool need (every key has pairs/keys values) plus one spare
      // bucket per allocation stripe and one word per key of margin.
      const mwt::BucketGrowth growth(options.first_bucket_size, options.growth_factor,
                                     options.max_bucket_size);
      const uint64_t pool = keys * (growth.words_for((pairs + keys - 1) / keys) + 1) + 256 * 1100;
      return Bucket(uint64_t(keys / 0.8), pool, options, bench_stream);
    });
  }
  if (o.wants("cuckoo")) {
    bench_cuckoo<8>(o, c, false);
    bench_cuckoo<16>(o, c, false);
    bench_cuckoo<32>(o, c, false);
    bench_cuckoo<16>(o, c, true);
  }
  if (o.wants("iceberg")) {
    bench_iceberg<16>(o, c, false);
    bench_iceberg<32>(o, c, false);
    if (!o.quick) bench_iceberg<8>(o, c, false);
    bench_iceberg<16>(o, c, true);
  }
  if (o.wants("portable")) {
    bench_portable<32>(o, c);
    if (!o.quick) bench_portable<16>(o, c);
  }
  if (o.wants("csr")) {
    bench_csr(o, c, mwt::CsrBuildMethod::sorted, 1.0);
    bench_csr(o, c, mwt::CsrBuildMethod::sorted, 4.0);
    bench_csr(o, c, mwt::CsrBuildMethod::binned, 1.0);
    bench_csr(o, c, mwt::CsrBuildMethod::scatter, 1.0);
    if (!o.quick) bench_csr(o, c, mwt::CsrBuildMethod::binned, 4.0);
  }
  if (o.wants("bloom")) {
    bench_bloom(uint64_t(2) << 30, o, c);
    bench_bloom(uint64_t(8) << 20, o, c);
  }
  if (o.wants("variants")) bench_variants(o, c);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_tables: %s\n", e.what());
  return 1;
}
