// The flat open-addressing tables against std::unordered_map /
// unordered_multimap on random data: the single-value table through the
// shared suite (table_checks.cuh), the multi-value and bucket-list tables
// through its multi-value lookups plus their own checks (sentinels, erase
// then reinsert, a full table, limits), and user kernels calling the device API.
#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "catch_templates.hpp"
#include "gpu_test_support.cuh"
#include "metawarp/tables/bucket_list_table.cuh"
#include "metawarp/tables/multi_value_table.cuh"
#include "metawarp/tables/single_value_table.cuh"
#include "table_checks.cuh"

namespace mwc = metawarp::cuda;
using namespace metawarp::tables;
using namespace metawarp::tables::testing;

namespace {

// ----------------------------------------------------------------- single value

template <class Ref, class K, class V>
__global__ void insert_computed_keys(Ref table, std::uint64_t n, std::uint32_t seed) {
  constexpr int group_size = Ref::group_size;
  const auto group = cg::tiled_partition<group_size>(cg::this_thread_block());
  const std::uint64_t i = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / group_size;
  if (i >= n) return;
  const K key = K(fmix32(std::uint32_t(i) ^ seed) % 1000003u);  // computed on the fly
  table.insert(group, key, V(i));
}

// ------------------------------------------------------------------ multi value

// Keys with multiplicities 1..10000; values distinct so results can be compared as multisets.
template <class K, class V>
void multi_value_data(std::vector<K>& keys, std::vector<V>& values, std::size_t distinct) {
  const auto unique = distinct_keys<K>(distinct, 21);
  const std::size_t multiplicities[] = {1, 2, 3, 5, 10, 33, 100, 1000, 10000};
  std::size_t next_value = 0;
  for (std::size_t i = 0; i < distinct; ++i) {
    const std::size_t m = i < 9 ? multiplicities[i] : 1 + i % 17;
    for (std::size_t c = 0; c < m; ++c) {
      keys.push_back(unique[i]);
      values.push_back(V(next_value++) * 2654435761u);
    }
  }
  // Shuffle so copies of a key are inserted concurrently.
  std::mt19937_64 rng(5);
  for (std::size_t i = keys.size(); i > 1; --i) {
    const std::size_t j = rng() % i;
    std::swap(keys[i - 1], keys[j]);
    std::swap(values[i - 1], values[j]);
  }
}

template <class Table>
void check_multi_value_table(Table (*make_table)(std::size_t)) {
  using K = typename Table::key_type;
  using V = typename Table::value_type;
  std::vector<K> keys;
  std::vector<V> values;
  multi_value_data(keys, values, 3000);
  const std::size_t n = keys.size();
  std::unordered_map<K, std::vector<V>> reference;
  for (std::size_t i = 0; i < n; ++i) reference[keys[i]].push_back(values[i]);
  std::vector<K> queries;
  for (const auto& [k, vs] : reference) queries.push_back(k);
  const auto absent = distinct_keys<K>(5000, 77);
  for (K k : absent) {
    if (!reference.count(k)) queries.push_back(k);
  }

  Table table = make_table(n);
  auto d_keys = to_device(keys);
  auto d_values = to_device(values);
  auto d_queries = to_device(queries);
  mwc::device_buffer<Status> d_status(n);

  SECTION("insert then retrieve matches unordered_multimap") {
    table.insert(d_keys.data(), d_values.data(), n, nullptr, d_status.data());
    for (Status s : to_host(d_status, n)) REQUIRE(s.ok());
    CHECK(table.size(test_stream) == n);

    check_multi_value_lookups(table, keys, values, test_stream);

    mwc::device_buffer<K> d_all_keys(n);
    mwc::device_buffer<V> d_all_values(n);
    REQUIRE(table.retrieve_all(d_all_keys.data(), d_all_values.data(), test_stream) == n);
    const auto all_keys = to_host(d_all_keys, n);
    const auto all_values = to_host(d_all_values, n);
    std::map<K, std::vector<V>> got_all, expected_all;
    for (std::size_t i = 0; i < n; ++i) got_all[all_keys[i]].push_back(all_values[i]);
    for (const auto& [k, vs] : reference) expected_all[k] = vs;
    for (auto& [k, vs] : got_all) std::sort(vs.begin(), vs.end());
    for (auto& [k, vs] : expected_all) std::sort(vs.begin(), vs.end());
    CHECK(got_all == expected_all);

    CHECK(for_each_sums(table, test_stream) == expected_sums(keys, values));
  }

  SECTION("sentinels rejected, empty input is a no-op") {
    const std::vector<K> bad = {KeySentinels<K>::empty, KeySentinels<K>::tombstone};
    auto d_bad = to_device(bad);
    table.insert(d_bad.data(), d_values.data(), 2, nullptr, d_status.data());
    const auto status = to_host(d_status, 2);
    CHECK(status[0].has(Status::invalid_key));
    CHECK(status[1].has(Status::invalid_key));
    CHECK(table.size(test_stream) == 0);
    table.insert(d_keys.data(), d_values.data(), 0, test_stream);
    mwc::device_buffer<std::uint64_t> d_offsets(1);
    CHECK(table.retrieve_offsets(d_queries.data(), 0, d_offsets.data(), test_stream) == 0);
    CHECK(table.size(test_stream) == 0);
  }

  SECTION("erase then reinsert") {
    table.insert(d_keys.data(), d_values.data(), n, test_stream);
    const std::size_t erased_keys = 100;  // the first 100 distinct keys incl. the heavy ones
    table.erase(d_queries.data(), erased_keys, test_stream);
    std::uint64_t remaining = n;
    for (std::size_t i = 0; i < erased_keys; ++i) remaining -= reference[queries[i]].size();
    CHECK(table.size(test_stream) == remaining);
    mwc::device_buffer<std::uint64_t> d_counts(queries.size());
    table.count(d_queries.data(), queries.size(), d_counts.data(), test_stream);
    auto counts = to_host(d_counts, queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const auto it = reference.find(queries[i]);
      const std::uint64_t expected = (i < erased_keys || it == reference.end()) ? 0 : it->second.size();
      REQUIRE(counts[i] == expected);
    }
    // Reinsert the pairs of the erased keys.
    std::vector<K> again_keys;
    std::vector<V> again_values;
    for (std::size_t i = 0; i < n; ++i) {
      if (std::find(queries.begin(), queries.begin() + erased_keys, keys[i]) != queries.begin() + erased_keys) {
        again_keys.push_back(keys[i]);
        again_values.push_back(values[i]);
      }
    }
    auto d_again_keys = to_device(again_keys);
    auto d_again_values = to_device(again_values);
    table.insert(d_again_keys.data(), d_again_values.data(), again_keys.size(), test_stream);
    CHECK_FALSE(table.peek_status(test_stream).has_error());
    CHECK(table.size(test_stream) == n);
    table.count(d_queries.data(), queries.size(), d_counts.data(), test_stream);
    counts = to_host(d_counts, queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const auto it = reference.find(queries[i]);
      REQUIRE(counts[i] == (it == reference.end() ? 0 : it->second.size()));
    }
  }
}

template <class Ref, class K, class V>
__global__ void insert_pairs_on_the_fly(Ref table, std::uint64_t n, std::uint32_t distinct_keys) {
  constexpr int group_size = Ref::group_size;
  const auto group = cg::tiled_partition<group_size>(cg::this_thread_block());
  const std::uint64_t i = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / group_size;
  if (i >= n) return;
  // Like the classifier's build kernel: feature = f(i), location = (target << 32 | window).
  const K feature = K(fmix32(std::uint32_t(i % distinct_keys)) % 0x7fffffffu);
  const V location = (V(i % 97) << 32) | V(i);
  table.insert(group, feature, location);
}

template <class Table>
void check_user_kernel_inserts(Table& table) {
  using K = typename Table::key_type;
  using V = typename Table::value_type;
  using Ref = typename Table::Ref;
  const std::uint64_t n = 200000;
  const std::uint32_t distinct = 5000;
  const int threads = 256;
  const std::uint64_t blocks = (n * Table::group_size + threads - 1) / threads;
  insert_pairs_on_the_fly<Ref, K, V><<<unsigned(blocks), threads>>>(table.ref(), n, distinct);
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

using SingleU32 = SingleValueHashTable<std::uint32_t, std::uint32_t>;  // packed, double hashing
using SingleU64Linear =
    SingleValueHashTable<std::uint64_t, std::uint64_t, AosLayout<std::uint64_t, std::uint64_t>,
                         LinearProbing, XxHasher, 1>;
// A whole warp per operation (the largest cooperative group).
using SingleU32Group32 =
    SingleValueHashTable<std::uint32_t, std::uint32_t, DefaultLayout<std::uint32_t, std::uint32_t>,
                         DoubleHashing, MurmurHasher, 32>;
// Key and value of different widths: structure of arrays, group 8.
using SingleU64U32Soa =
    SingleValueHashTable<std::uint64_t, std::uint32_t, SoaLayout<std::uint64_t, std::uint32_t>,
                         DoubleHashing, MurmurHasher, 8>;
using MultiU32U64 = MultiValueHashTable<std::uint32_t, std::uint64_t>;  // SoA, group 8
using BucketU32U64 = BucketListHashTable<std::uint32_t, std::uint64_t>;

MultiU32U64 make_multi_table(std::size_t pairs) {
  return MultiU32U64(std::uint64_t(pairs / 0.8), {}, test_stream);
}
BucketU32U64 make_bucket_table(std::size_t pairs) {
  // Growth 1, 1.5, ... wastes at most half of a list's words (plus headers).
  return BucketU32U64(4000, std::uint64_t(pairs * 2.2 + 4000), BucketListOptions{{}, 1, 1.5, 256, 0}, test_stream);
}

}  // namespace

// The shared suite (table_checks.cuh) over key/value types, layouts,
// probing and group sizes.
TEMPLATE_TEST_CASE("SingleValueHashTable matches std::unordered_map", "[gpu][single]", SingleU32,
                   SingleU64Linear, SingleU32Group32, SingleU64U32Soa) {
  check_single_value_table<TestType>(
      made_with<TestType>(TableOptions{}),
      {.when_full = WhenFull::reports_pair, .exact_duplicate_status = true,
       .fills_every_slot = true});
}

TEST_CASE("SingleValueHashTable device API from a user kernel") {
  SingleU32 table(2000000, {}, test_stream);
  const std::uint64_t n = 1000000;
  insert_computed_keys<SingleU32::Ref, std::uint32_t, std::uint32_t>
      <<<unsigned((n * SingleU32::group_size + 255) / 256), 256>>>(table.ref(), n, 7);
  mwc::check(cudaDeviceSynchronize(), "user kernel");
  std::unordered_set<std::uint32_t> distinct;
  for (std::uint64_t i = 0; i < n; ++i) distinct.insert(fmix32(std::uint32_t(i) ^ 7) % 1000003u);
  CHECK(table.size(test_stream) == distinct.size());
  CHECK(table.peek_status(test_stream).has(Status::duplicate_key));
  CHECK_FALSE(table.peek_status(test_stream).has_error());
}

TEST_CASE("MultiValueHashTable u32/u64 against unordered_multimap") {
  check_multi_value_table<MultiU32U64>(make_multi_table);
}

TEST_CASE("MultiValueHashTable full table reports table_full") {
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

TEST_CASE("BucketListHashTable u32/u64 against unordered_multimap") {
  check_multi_value_table<BucketU32U64>(make_bucket_table);
}

TEST_CASE("BucketListHashTable device API from a user kernel (classifier build path)") {
  BucketU32U64 table(8000, 300000, {}, test_stream);
  check_user_kernel_inserts(table);
}

TEST_CASE("BucketListHashTable limits: max values per key, pool exhaustion, full key table") {
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
    mwc::device_buffer<std::uint64_t> d_counts(3);
    const std::vector<std::uint32_t> q = {0, 1, 2};
    auto d_q = to_device(q);
    mwc::device_buffer<std::uint64_t> d_offsets(4);
    const std::uint64_t total = table.retrieve_offsets(d_q.data(), 3, d_offsets.data(), test_stream);
    CHECK(total == table.size(test_stream));
  }
  SECTION("full key table") {
    BucketU32U64 table(50, 100000, {}, test_stream);
    const auto keys = distinct_keys<std::uint32_t>(table.key_capacity() + 30, 8);
    auto d_keys = to_device(keys);
    auto d_values = to_device(random_values<std::uint64_t>(keys.size(), 4));
    table.insert(d_keys.data(), d_values.data(), keys.size(), test_stream);
    CHECK(table.peek_status(test_stream).has(Status::table_full));
    CHECK(table.num_keys(test_stream) == table.key_capacity());
    CHECK(table.size(test_stream) == table.key_capacity());
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
