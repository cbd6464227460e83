// The flat open-addressing tables against std containers: their rows of the
// matrix (table_matrix.cuh: key/value widths, layouts, probing, group sizes)
// through their family's suite: the single-value table against
// std::unordered_map (table_checks.cuh), the multi-value and bucket-list
// tables against std::unordered_multimap (multi_value_checks.cuh); and what
// only they have: user kernels calling the device API (the classifier's
// build path), one key filling the multi-value table, the bucket list's
// limits, moving a table.
#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "catch_templates.hpp"
#include "gpu_test_support.cuh"
#include "multi_value_checks.cuh"
#include "table_matrix.cuh"

namespace mwc = metawarp::cuda;
using namespace metawarp::tables;
using namespace metawarp::tables::testing;

namespace {

// The defaults, the classifier's u32 feature -> u64 location.
using MultiU32U64 = std::tuple_element_t<0, matrix::MultiValueTables>;
using BucketU32U64 = std::tuple_element_t<0, matrix::BucketListTables>;
static_assert(std::is_same_v<MultiU32U64, MultiValueHashTable<std::uint32_t, std::uint64_t>>);
static_assert(std::is_same_v<BucketU32U64, BucketListHashTable<std::uint32_t, std::uint64_t>>);

template <class Table>
void check_user_kernel_inserts(Table& table) {
  using K = typename Table::key_type;
  using V = typename Table::value_type;
  const std::uint64_t n = 200000;
  const std::uint32_t distinct = 5000;
  const auto ref = table.ref();
  launch_group_per_item<Table::group_size>(n, test_stream, [=] __device__(
      const typename Table::group_type& g, std::uint64_t i) {
    // Like the classifier's build kernel: feature = f(i), location = (target << 32 | window).
    const K feature = K(fmix32(std::uint32_t(i % distinct)) % 0x7fffffffu);
    ref.insert(g, feature, (V(i % 97) << 32) | V(i));
  }, "user insert kernel");
  mwc::check(cudaDeviceSynchronize(), "user insert kernel");
  CHECK(table.peek_status(test_stream).ok());
  REQUIRE(table.size(test_stream) == n);
  mwc::device_buffer<K> d_keys(n);
  mwc::device_buffer<V> d_values(n);
  REQUIRE(table.retrieve_all(d_keys.data(), d_values.data(), test_stream) == n);
  const auto keys = to_host(d_keys, n);
  const auto values = to_host(d_values, n);
  std::vector<bool> seen(n, false);
  for (std::uint64_t j = 0; j < n; ++j) {
    const std::uint64_t i = values[j] & 0xffffffffu;
    REQUIRE(i < n);
    REQUIRE_FALSE(seen[i]);
    seen[i] = true;
    REQUIRE((values[j] >> 32) == i % 97);
    REQUIRE(keys[j] == K(fmix32(std::uint32_t(i % distinct)) % 0x7fffffffu));
  }
}

}  // namespace

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

TEMPLATE_LIST_TEST_CASE("multi-value tables match std::unordered_multimap", "[gpu][multi]",
                        matrix::MultiValueTables) {
  check_multi_value_table<TestType>([](std::size_t, std::size_t pairs, cudaStream_t stream) {
    return TestType(std::uint64_t(pairs / 0.8), TableOptions{}, stream);
  });
}

TEMPLATE_LIST_TEST_CASE("bucket-list tables match std::unordered_multimap", "[gpu][bucket]",
                        matrix::BucketListTables) {
  check_multi_value_table<TestType>([](std::size_t keys, std::size_t pairs, cudaStream_t stream) {
    // Growth 1, 1.5, ... wastes at most half of a list's words (plus headers).
    return TestType(std::uint64_t(keys / 0.75), std::uint64_t(pairs * 2.2 + 4000),
                    BucketListOptions{{}, 1, 1.5, 256, 0}, stream);
  });
}

TEST_CASE("MultiValueHashTable: one key filling the table reports table_full") {
  MultiU32U64 table(1000, {}, test_stream);
  const std::size_t n = table.capacity() + 100;
  std::vector<std::uint32_t> keys(n, 42u);  // one key, many values: worst case probing
  auto d_keys = to_device(keys);
  auto d_values = to_device(random_values<std::uint64_t>(n, 3));
  table.insert(d_keys.data(), d_values.data(), n, test_stream);
  CHECK(table.peek_status(test_stream).has(Status::table_full));
  CHECK(table.size(test_stream) == table.capacity());
}

TEST_CASE("MultiValueHashTable device API from a user kernel (classifier build path)") {
  MultiU32U64 table(300000, {}, test_stream);
  check_user_kernel_inserts(table);
}

TEST_CASE("BucketListHashTable device API from a user kernel (classifier build path)") {
  BucketU32U64 table(8000, 300000, {}, test_stream);
  check_user_kernel_inserts(table);
}

TEST_CASE("BucketListHashTable limits: max values per key, pool exhaustion") {
  SECTION("max values per key") {
    BucketListOptions options;
    options.max_values_per_key = 10;
    BucketU32U64 table(100, 10000, options, test_stream);
    std::vector<std::uint32_t> keys(25, 7u);
    keys.push_back(8u);
    auto d_keys = to_device(keys);
    auto d_values = to_device(random_values<std::uint64_t>(keys.size(), 4));
    mwc::device_buffer<Status> d_status(keys.size());
    table.insert(d_keys.data(), d_values.data(), keys.size(), nullptr, d_status.data());
    const auto status = to_host(d_status, keys.size());
    CHECK(std::count_if(status.begin(), status.end(), [](Status s) { return s.has(Status::max_values_per_key_reached); }) == 15);
    CHECK(table.size(test_stream) == 11);
    CHECK(table.num_keys(test_stream) == 2);
  }
  SECTION("pool exhaustion is out_of_memory") {
    BucketU32U64 table(100, 50, {}, test_stream);
    std::vector<std::uint32_t> keys(200);
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = std::uint32_t(i % 3);
    auto d_keys = to_device(keys);
    auto d_values = to_device(random_values<std::uint64_t>(keys.size(), 4));
    table.insert(d_keys.data(), d_values.data(), keys.size(), test_stream);
    CHECK(table.peek_status(test_stream).has(Status::out_of_memory));
    CHECK(table.size(test_stream) <= 50);
    CHECK(table.size(test_stream) > 0);
    const std::vector<std::uint32_t> q = {0, 1, 2};
    auto d_q = to_device(q);
    mwc::device_buffer<std::uint64_t> d_offsets(4);
    const std::uint64_t total = table.retrieve_offsets(d_q.data(), 3, d_offsets.data(), test_stream);
    CHECK(total == table.size(test_stream));
  }
}

TEST_CASE("tables are movable and release memory") {
  std::size_t free_before = 0, free_after = 0, total = 0;
  mwc::check(cudaMemGetInfo(&free_before, &total), "cudaMemGetInfo");
  {
    MultiU32U64 a(std::uint64_t(1) << 24, {}, test_stream);
    MultiU32U64 b = std::move(a);
    std::vector<std::uint32_t> keys = {1, 2, 3};
    std::vector<std::uint64_t> values = {4, 5, 6};
    auto d_keys = to_device(keys);
    auto d_values = to_device(values);
    b.insert(d_keys.data(), d_values.data(), 3, test_stream);
    CHECK(b.size(test_stream) == 3);
  }
  mwc::check(cudaMemGetInfo(&free_after, &total), "cudaMemGetInfo");
  CHECK(free_after + (std::size_t(1) << 20) >= free_before);
}
