// CsrTable (HashGraph): its row of the matrix (table_matrix.cuh: key/value
// types x group sizes) x the three builds x load factors below and above 1,
// every key value valid, through the multi-value lookups
// (multi_value_checks.cuh, against std::unordered_multimap); the CSR arrays;
// the intersection probe against std::set_intersection.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <random>
#include <vector>

#include "catch_templates.hpp"
#include "gpu_test_support.cuh"
#include "metawarp/tables/csr_intersection.cuh"
#include "metawarp/tables/csr_table.cuh"
#include "multi_value_checks.cuh"
#include "table_matrix.cuh"

namespace mwc = metawarp::cuda;
using namespace metawarp::tables;
using namespace metawarp::tables::testing;

namespace {

template <class T>
std::vector<T> to_host_array(const T* device, std::size_t count) {
  std::vector<T> host(count);
  mwc::check(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost),
             "test copy of CSR arrays");
  return host;
}

// n pairs over about n / mean_copies distinct keys, including the all-ones
// key (a sentinel for the open-addressing tables, an ordinary key here).
template <class K, class V>
void random_pairs(std::size_t n, std::size_t mean_copies, std::uint64_t seed, std::vector<K>& keys,
                  std::vector<V>& values) {
  const auto pool = distinct_keys<K>(std::max<std::size_t>(1, n / mean_copies), seed);
  std::mt19937_64 rng(seed + 1);
  keys.resize(n);
  values.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = (i % 1000 == 999) ? K(~K(0)) : pool[rng() % pool.size()];
    values[i] = V(i);
  }
}

}  // namespace

// The matrix spells the CSR row out (it only declares the template).
static_assert(std::is_same_v<std::tuple_element_t<0, matrix::CsrTables>,
                             CsrTable<std::uint32_t, std::uint32_t>>,
              "the CSR row starts with the defaults");

TEMPLATE_LIST_TEST_CASE("CSR table matches std::multimap", "[gpu][csr]", matrix::CsrTables) {
  using Table = TestType;
  using K = typename Table::key_type;
  using V = typename Table::value_type;
  BlockingStream stream;
  const auto method = GENERATE(CsrBuildMethod::scatter, CsrBuildMethod::binned, CsrBuildMethod::sorted);
  const double load = GENERATE(0.7, 4.0);
  const std::size_t copies = GENERATE(1, 6);
  const std::size_t n = 40000;
  std::vector<K> keys;
  std::vector<V> values;
  random_pairs(n, copies, 61 + copies, keys, values);
  const auto reference = grouped(keys, values);
  auto d_keys = to_device(keys);
  auto d_values = to_device(values);
  CsrOptions o;
  o.method = method;
  o.load_factor = load;
  o.bins = 64;  // small, so the binned path really bins at this size
  Table table(d_keys.data(), d_values.data(), n, o, stream);
  CHECK(table.size() == n);
  CHECK(std::abs(table.load_factor() - load) <= 0.01 * load);

  SECTION("CSR arrays: offsets partition the pairs, lists sorted by key") {
    const auto offsets = to_host_array(table.offsets(), table.num_vertices() + 1);
    const auto csr_keys = to_host_array(table.keys(), n);
    const auto csr_values = to_host_array(table.values(), n);
    REQUIRE(offsets.front() == 0);
    REQUIRE(offsets.back() == n);
    for (std::size_t v = 0; v < table.num_vertices(); ++v) {
      REQUIRE(offsets[v] <= offsets[v + 1]);
      REQUIRE(std::is_sorted(csr_keys.begin() + offsets[v], csr_keys.begin() + offsets[v + 1]));
    }
    CHECK(grouped(csr_keys, csr_values) == reference);
  }

  SECTION("count / retrieve / contains of hits and misses") {
    check_multi_value_lookups(table, keys, values, stream);
  }

  SECTION("intersection probe equals std::set_intersection; join size") {
    std::vector<K> other_keys;
    std::vector<V> other_values;
    random_pairs(n / 2, copies, 61 + copies, other_keys, other_values);  // same key pool, fewer draws
    for (std::size_t i = 0; i < other_keys.size(); i += 3) other_keys[i] = K(other_keys[i] ^ 0x5a5a);
    auto d_other_keys = to_device(other_keys);
    auto d_other_values = to_device(other_values);
    CsrOptions same = o;
    same.num_vertices = table.num_vertices();
    same.method = CsrBuildMethod::scatter;
    const CsrTable<K, V, MurmurHasher, 1> other(d_other_keys.data(), d_other_values.data(),
                                                other_keys.size(), same, stream);
    std::vector<K> a = keys, b = other_keys, expected;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(expected));
    REQUIRE(!expected.empty());
    const std::uint64_t count = csr_intersect(table, other, static_cast<K*>(nullptr), stream);
    REQUIRE(count == expected.size());
    mwc::device_buffer<K> d_common(count);
    REQUIRE(csr_intersect(table, other, d_common.data(), stream) == count);
    auto common = to_host(d_common, count);
    std::sort(common.begin(), common.end());
    CHECK(common == expected);

    const auto other_grouped = grouped(other_keys, other_values);
    std::uint64_t join = 0;
    for (const auto& [k, vs] : reference) {
      const auto it = other_grouped.find(k);
      if (it != other_grouped.end()) join += vs.size() * it->second.size();
    }
    CHECK(csr_join_size(table, other, stream) == join);

    CsrOptions different = same;
    different.num_vertices += 1;
    const CsrTable<K, V, MurmurHasher, 1> mismatched(d_other_keys.data(), d_other_values.data(),
                                                     other_keys.size(), different, stream);
    CHECK_THROWS_AS(csr_join_size(table, mismatched, stream), std::invalid_argument);
  }
}

TEST_CASE("CSR table of no pairs answers every query with nothing", "[gpu][csr]") {
  BlockingStream stream;
  const CsrTable<std::uint32_t, std::uint32_t> table(nullptr, nullptr, 0, CsrOptions{}, stream);
  CHECK(table.size() == 0);
  const std::vector<std::uint32_t> queries = {1, 2, 3};
  auto d_queries = to_device(queries);
  mwc::device_buffer<std::uint64_t> d_offsets(4);
  CHECK(table.retrieve_offsets(d_queries.data(), 3, d_offsets.data(), stream) == 0);
}

TEST_CASE("CSR sorted build: long lists of several keys, values in input order", "[gpu][csr]") {
  // 100 vertices holding about 2 keys x 100 values each: lists far above the
  // one-thread sort, with the keys interleaved in input order, so the build
  // takes the segmented-sort path.
  BlockingStream stream;
  const std::size_t n = 20000;
  std::vector<std::uint32_t> keys;
  std::vector<std::uint32_t> values;
  random_pairs(n, 100, 7, keys, values);
  auto d_keys = to_device(keys);
  auto d_values = to_device(values);
  CsrOptions o;
  o.method = CsrBuildMethod::sorted;
  o.load_factor = 200;
  const CsrTable<std::uint32_t, std::uint32_t> table(d_keys.data(), d_values.data(), n, o, stream);
  const auto offsets = to_host_array(table.offsets(), table.num_vertices() + 1);
  const auto csr_keys = to_host_array(table.keys(), n);
  const auto csr_values = to_host_array(table.values(), n);
  REQUIRE(offsets.back() == n);
  std::size_t long_mixed = 0;
  for (std::size_t v = 0; v < table.num_vertices(); ++v) {
    const auto first = csr_keys.begin() + offsets[v], last = csr_keys.begin() + offsets[v + 1];
    REQUIRE(std::is_sorted(first, last));
    if (last - first > 32 && first != last && *first != *(last - 1)) ++long_mixed;
  }
  CHECK(long_mixed > 10);
  // Per key, the values in CSR order are the input order (no sort by value).
  std::map<std::uint32_t, std::vector<std::uint32_t>> in_order, csr_order;
  for (std::size_t i = 0; i < n; ++i) in_order[keys[i]].push_back(values[i]);
  for (std::size_t i = 0; i < n; ++i) csr_order[csr_keys[i]].push_back(csr_values[i]);
  CHECK(csr_order == in_order);
}
