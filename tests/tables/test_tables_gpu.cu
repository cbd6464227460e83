// SingleValueHashTable: its row of the matrix (table_matrix.cuh: key/value
// widths, layouts, probing, group sizes) through the single-value suite
// (table_checks.cuh, against std::unordered_map), and a user kernel calling
// the device API. (The multi-value and bucket-list tables:
// test_multi_value_tables_gpu.cu.)
#include <cstdint>
#include <unordered_set>

#include "catch_templates.hpp"
#include "gpu_test_support.cuh"
#include "table_checks.cuh"
#include "table_matrix.cuh"

namespace mwc = metawarp::cuda;
using namespace metawarp::tables;
using namespace metawarp::tables::testing;

TEMPLATE_LIST_TEST_CASE("SingleValueHashTable matches std::unordered_map", "[gpu][single]",
                        matrix::SingleValueTables) {
  // The probing visits every window before it reports table_full.
  check_single_value_table<TestType>(
      made_with<TestType>(TableOptions{}),
      {.when_full = WhenFull::reports_pair, .exact_duplicate_status = true,
       .fills_every_slot = true});
}

TEST_CASE("SingleValueHashTable device API from a user kernel") {
  using Table = std::tuple_element_t<0, matrix::SingleValueTables>;  // the defaults, u32/u32
  Table table(2000000, {}, test_stream);
  const std::uint64_t n = 1000000;
  const auto ref = table.ref();
  launch_group_per_item<Table::group_size>(n, test_stream, [=] __device__(
      const Table::group_type& g, std::uint64_t i) {
    ref.insert(g, fmix32(std::uint32_t(i) ^ 7) % 1000003u, std::uint32_t(i));  // keys computed on the fly
  }, "user kernel");
  mwc::check(cudaDeviceSynchronize(), "user kernel");
  std::unordered_set<std::uint32_t> distinct;
  for (std::uint64_t i = 0; i < n; ++i) distinct.insert(fmix32(std::uint32_t(i) ^ 7) % 1000003u);
  CHECK(table.size(test_stream) == distinct.size());
  CHECK(table.peek_status(test_stream).has(Status::duplicate_key));
  CHECK_FALSE(table.peek_status(test_stream).has_error());
}
