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
#include <utility>
#include <vector>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/tables/all.cuh"
#include "metawarp/tables/csr_intersection.cuh"
#include "bench_ceilings.cuh"

namespace mwc = metawarp::cuda;
namespace mwt = metawarp::tables;
using metawarp::bench::bench_stream;
using metawarp::bench::Ceilings;
using metawarp::bench::measure_ceilings;
using metawarp::bench::report;
using metawarp::bench::time_best;
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

// BlockWords 4: one 32-byte sector per key (the default); 1: one 64-bit
// word, so an add is one atomicOr (label: expected false-positive rate).
template <int BlockWords>
void bench_bloom(uint64_t bytes, const Options& o, const Ceilings& c) {
  const uint64_t n = o.n;
  mwc::device_buffer<uint32_t> keys(n);
  make_unique_keys<<<4096, 256>>>(keys.data(), n, 0);
  mwc::device_buffer<bool> out(n);
  mwt::BloomFilter<uint32_t, mwt::MurmurHasher, BlockWords> filter(bytes * 8, 8, 0, bench_stream);
  char fp[64];
  std::snprintf(fp, sizeof fp, " (fp %.1e)", filter.expected_false_positive_rate(n));
  const std::string label = "bloom " + std::to_string(bytes >> 20) + " MiB k=8" +
                            (BlockWords == 1 ? " word" : "") + fp;
  const double t_add = time_best([&] { filter.insert(keys.data(), n, bench_stream); }, [&] { filter.clear(bench_stream); });
  report(label + "  add", n, t_add, c.cas, "CAS");
  const double t_query = time_best([&] { filter.contains(keys.data(), n, out.data(), bench_stream); });
  report(label + "  contains", n, t_query, c.sector_reads, "sector reads");
}

// ------------------------------------------------- variants (tuning)
//
// Measurements that pick a library default or state a bound: every find and
// insert tile of the bucketed cuckoo table (default_bucket_tile) and the atomics bound of a
// Bloom add. Selected with --variant (default: all) inside the `variants`
// section. (Round 1's losing candidates are gone: docs/benchmarks.md.)

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

// Bucketed cuckoo find with every tile size T (lanes per bucket, B/T slots
// each) on one table filled by the library's insert: picks
// default_bucket_tile<B>. Each tile's output is checked against the default's.
template <int B, int T>
void bcht_find_tile(const Options& o, const Ceilings& c, double load,
                    const UniqueWorkload<uint32_t, uint32_t>& w, mwc::device_buffer<uint32_t>& check) {
  using Table = mwt::BucketedCuckooTable<uint32_t, uint32_t, B, mwt::MurmurHasher, T>;
  using Default = mwt::BucketedCuckooTable<uint32_t, uint32_t, B>;
  mwt::CuckooOptions options;
  options.unique_keys_checked = false;
  Table table(uint64_t(double(o.n) / load), options, bench_stream);
  const uint64_t pairs = std::min<uint64_t>(o.n, uint64_t(load * double(table.capacity())));
  table.insert(w.hits.data(), w.values.data(), pairs, bench_stream);
  if (table.pop_status(bench_stream).has_error()) std::printf("  (insert reported errors)\n");
  char label[160];
  std::snprintf(label, sizeof label, "bcht-tile B=%d T=%d load %.2f", B, T,
                double(pairs) / table.capacity());
  for (const bool hit : {true, false}) {
    const uint32_t* keys = hit ? w.hits.data() : w.misses.data();
    const double t = time_best([&] { table.find(keys, pairs, check.data(), 0u, bench_stream); });
    report_variant(std::string(label) + (hit ? " find hit" : " find miss"), pairs, t,
                   c.sector_reads, "sector reads");
    if (hit && T != Default::Ref::find_group_size) {
      // The default tile on the same table (same seed and insert order).
      const typename Default::Ref d{{}, table.ref().layout, table.ref().hashes, 0, false, nullptr};
      mwc::device_buffer<uint32_t> reference(pairs);
      mwt::bulk::find(d, keys, pairs, reference.data(), 0u, bench_stream, nullptr, "bench check");
      expect_same(reference, check, pairs, label);
    }
  }
}

// The same for the insert's tile: time the bulk insert (resident grid), then
// check that every pair is found with its value.
template <int B, int T>
void bcht_insert_tile(const Options& o, const Ceilings& c, double load,
                      const UniqueWorkload<uint32_t, uint32_t>& w,
                      mwc::device_buffer<uint32_t>& check) {
  using Table = mwt::BucketedCuckooTable<uint32_t, uint32_t, B, mwt::MurmurHasher,
                                         mwt::default_bucket_tile<B>, T>;
  mwt::CuckooOptions options;
  options.unique_keys_checked = false;
  Table table(uint64_t(double(o.n) / load), options, bench_stream);
  const uint64_t pairs = std::min<uint64_t>(o.n, uint64_t(load * double(table.capacity())));
  char label[160];
  std::snprintf(label, sizeof label, "bcht-tile B=%d T=%d load %.2f", B, T,
                double(pairs) / table.capacity());
  const double t = time_best([&] { table.insert(w.hits.data(), w.values.data(), pairs, bench_stream); },
                             [&] { table.clear(bench_stream); });
  if (table.pop_status(bench_stream).has_error()) std::printf("  (insert reported errors)\n");
  report_variant(std::string(label) + " insert", pairs, t, c.cas, "CAS");
  table.find(w.hits.data(), pairs, check.data(), 0u, bench_stream);
  expect_same(w.values, check, pairs, label);
}

template <int B, int... T>
void bcht_tiles(const Options& o, const Ceilings& c, std::integer_sequence<int, T...>) {
  const UniqueWorkload<uint32_t, uint32_t> w(o.n);
  mwc::device_buffer<uint32_t> check(o.n);
  for (double load : o.loads) {
    (bcht_insert_tile<B, T>(o, c, load, w, check), ...);
    (bcht_find_tile<B, T>(o, c, load, w, check), ...);
  }
}

// What bounds a Bloom add on a large filter: the same hashing and random
// sector, with exactly A 64-bit atomicOr per key (A = 1, 2, 4), and with a
// read of each word first (the filter skips words holding their bits). The
// filter (k = 8) issues about 3.6 per key (4 * (1 - (3/4)^8) words hold a bit).
template <int A, bool ReadFirst>
__global__ void bloom_atomics(unsigned long long* blocks, uint64_t num_blocks, const uint32_t* keys,
                              uint64_t n, mwt::MurmurHasher hasher) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t h = hasher(keys[i]);
    unsigned long long* block = blocks + 4 * (((h >> 32) * num_blocks) >> 32);
#pragma unroll
    for (int a = 0; a < A; ++a) {
      const unsigned long long bit = 1ull << ((h >> (6 * a)) & 63);
      if (!ReadFirst || (block[a] & bit) == 0) atomicOr(block + a, bit);
    }
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
  const auto run = [&](auto a, auto read_first) {
    constexpr int A = decltype(a)::value;
    constexpr bool R = decltype(read_first)::value;
    const double t = time_best([&] {
      bloom_atomics<A, R><<<grid, 256, 0, bench_stream>>>(words.data(), blocks, keys.data(), n,
                                                         mwt::MurmurHasher(0));
    }, [&] { words.fill_bytes(0, bench_stream); });
    report_variant("bloom-atomics 2048 MiB " + std::to_string(A) + " atomicOr/key" +
                       (R ? " read first" : ""),
                   n, t, c.cas, "CAS");
  };
  run(std::integral_constant<int, 1>{}, std::false_type{});
  run(std::integral_constant<int, 2>{}, std::false_type{});
  run(std::integral_constant<int, 4>{}, std::false_type{});
  run(std::integral_constant<int, 1>{}, std::true_type{});
  run(std::integral_constant<int, 4>{}, std::true_type{});
}

void bench_variants(const Options& o, const Ceilings& c) {
  if (o.wants_variant("bcht-tile")) {
    bcht_tiles<8>(o, c, std::integer_sequence<int, 1, 2, 4, 8>{});
    bcht_tiles<16>(o, c, std::integer_sequence<int, 2, 4, 8, 16>{});
    bcht_tiles<32>(o, c, std::integer_sequence<int, 4, 8, 16, 32>{});
  }
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
                  "             [--variant bcht-tile,bloom-atomics]   (of the variants section)\n"
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
    bench_bloom<4>(uint64_t(2) << 30, o, c);
    bench_bloom<1>(uint64_t(2) << 30, o, c);
    bench_bloom<4>(uint64_t(8) << 20, o, c);
    bench_bloom<1>(uint64_t(8) << 20, o, c);
  }
  if (o.wants("variants")) bench_variants(o, c);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_tables: %s\n", e.what());
  return 1;
}
