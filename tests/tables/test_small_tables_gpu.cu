// The tables of keys only: the counting table, the hash set and the Bloom
// filter, their rows of the matrix (table_matrix.cuh) through their suites
// (key_table_checks.cuh: against std::unordered_map of counts,
// std::unordered_set, no false negatives), and a user kernel counting
// through the device API.
#include <cstdint>
#include <vector>

#include "catch_templates.hpp"
#include "gpu_test_support.cuh"
#include "key_table_checks.cuh"
#include "table_matrix.cuh"

namespace mwc = metawarp::cuda;
using namespace metawarp::tables;
using namespace metawarp::tables::testing;

TEMPLATE_LIST_TEST_CASE("CountingHashTable counts like std::unordered_map", "[gpu][counting]",
                        matrix::CountingTables) {
  check_counting_table<TestType>();
}

TEMPLATE_LIST_TEST_CASE("HashSet behaves like std::unordered_set", "[gpu][set]",
                        matrix::HashSets) {
  check_hash_set<TestType>();
}

TEMPLATE_LIST_TEST_CASE("BloomFilter has no false negatives and about the expected false-positive rate",
                        "[gpu][bloom]", matrix::BloomFilters) {
  check_bloom_filter<TestType>();
}

TEST_CASE("CountingHashTable device API from a user kernel") {
  using Table = std::tuple_element_t<0, matrix::CountingTables>;  // the defaults, u32 keys
  Table table(30000, {}, test_stream);
  const std::uint64_t n = 100000;
  const auto ref = table.ref();
  launch_group_per_item<Table::group_size>(n, test_stream, [=] __device__(
      const Table::group_type& g, std::uint64_t i) {
    ref.insert(g, std::uint32_t(i % 1000) * 7919u);  // keys computed on the fly
  }, "user counting kernel");
  mwc::check(cudaDeviceSynchronize(), "user counting kernel");
  CHECK(table.size(test_stream) == 1000);
  const std::vector<std::uint32_t> q = {0u, 7919u, 999u * 7919u};
  auto d_q = to_device(q);
  mwc::device_buffer<std::uint32_t> d_c(3);
  table.count(d_q.data(), 3, d_c.data(), test_stream);
  CHECK(to_host(d_c, 3) == std::vector<std::uint32_t>{100, 100, 100});
}
