// BucketedCuckooTable: its row of the matrix (table_matrix.cuh: key/value
// types x bucket sizes 8/16/32) through the single-value suite
// (table_checks.cuh); failed builds reported and retried; lookups with the
// device API from a user kernel.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "catch_templates.hpp"
#include "gpu_test_support.cuh"
#include "metawarp/tables/bucketed_cuckoo_table.cuh"
#include "table_checks.cuh"
#include "table_matrix.cuh"

namespace mwc = metawarp::cuda;
using namespace metawarp::tables;
using namespace metawarp::tables::testing;

namespace {

template <class Ref, class K, class V>
__global__ void find_in_kernel(Ref table, const K* keys, std::uint64_t n, V* out) {
  auto g = cg::tiled_partition<Ref::group_size>(cg::this_thread_block());
  const std::uint64_t i = (blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x) / Ref::group_size;
  if (i >= n) return;
  V value{};
  const bool found = table.find(g, keys[i], value);
  if (g.thread_rank() == 0) out[i] = found ? value : V(7);
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("bucketed cuckoo table matches std::unordered_map", "[gpu][cuckoo]",
                        matrix::CuckooTables) {
  using Table = TestType;
  using V = typename Table::value_type;
  // An eviction chain may drop another key; racing copies are removed after the insert.
  shared_checks_section<Table>(CuckooOptions{}, {.when_full = WhenFull::loses_pairs});
  auto&& [stream, n, keys, values, reference, d_keys, d_values] =
      DevicePairsOf<Table>(30000, 31, 32);

  SECTION("build at load 0.9 with retries, device-API lookups") {
    Table table(std::uint64_t(n / 0.9), CuckooOptions{}, stream);
    const CuckooBuildResult result = table.build(d_keys.data(), d_values.data(), n, stream);
    REQUIRE(result.ok());
    CHECK(result.attempts >= 1);
    CHECK(table.size(stream) == n);
    mwc::device_buffer<V> d_out(n);
    const auto ref = table.ref();
    const unsigned blocks = unsigned((n * Table::group_size + 255) / 256);
    find_in_kernel<<<blocks, 256, 0, stream>>>(ref, d_keys.data(), n, d_out.data());
    mwc::check(cudaStreamSynchronize(stream), "cuckoo find kernel");
    const auto out = to_host(d_out, n);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(out[i] == values[i]);
    CHECK(stored_pairs(table, stream) == reference);
  }

  SECTION("a build that cannot fit reports table_full; growth retries succeed") {
    Table table(n / 2, CuckooOptions{}, stream);
    CuckooRetry same_size;
    same_size.max_attempts = 2;
    const CuckooBuildResult failed = table.build(d_keys.data(), d_values.data(), n, stream, same_size);
    CHECK(failed.status.has(Status::table_full));
    CHECK_FALSE(failed.ok());
    CHECK(failed.attempts == 2);
    CHECK(failed.seed == 1);  // the second attempt used the next seed

    CuckooRetry growing;
    growing.max_attempts = 6;
    growing.capacity_growth = 1.5;
    const CuckooBuildResult grown = table.build(d_keys.data(), d_values.data(), n, stream, growing);
    REQUIRE(grown.ok());
    CHECK(grown.attempts > 1);
    CHECK(table.capacity() >= n);
    CHECK(table.size(stream) == n);
    mwc::device_buffer<V> d_out(n);
    table.find(d_keys.data(), n, d_out.data(), V(0), stream);
    const auto out = to_host(d_out, n);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(out[i] == values[i]);
  }

  SECTION("unchecked inserts of unique keys store every pair once") {
    CuckooOptions o;
    o.unique_keys_checked = false;
    Table table(std::uint64_t(n / 0.9), o, stream);
    REQUIRE(table.build(d_keys.data(), d_values.data(), n, stream).ok());
    CHECK(table.size(stream) == n);
  }
}
