// The GPU tables against std::unordered_map / unordered_multimap on random
// data: unique keys, duplicates, sentinel keys, empty input, erase then
// reinsert, a full table, and user kernels calling the device API.
#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "catch.hpp"
#include "gpu_test_support.cuh"
#include "metawarp/tables/bucket_list_table.cuh"
#include "metawarp/tables/multi_value_table.cuh"
#include "metawarp/tables/single_value_table.cuh"

namespace mwc = metawarp::cuda;
using namespace metawarp::tables;
using namespace metawarp::tables::testing;

namespace {

// ----------------------------------------------------------------- single value

template <class Table>
void check_single_value_table() {
  using K = typename Table::key_type;
  using V = typename Table::value_type;
  const std::size_t n = 50000;
  const auto keys = distinct_keys<K>(2 * n, 11);  // first n inserted, rest are misses
  const auto values = random_values<V>(n, 12);
  std::vector<K> inserted(keys.begin(), keys.begin() + n);
  std::unordered_map<K, V> reference;
  for (std::size_t i = 0; i < n; ++i) reference[inserted[i]] = values[i];

  Table table(std::uint64_t(n / 0.85), {}, test_stream);
  auto d_keys = to_device(inserted);
  auto d_all_keys = to_device(keys);
  auto d_values = to_device(values);
  mwc::device_buffer<Status> d_status(2 * n);

  SECTION("unique keys: find hits and misses, size, retrieve_all, for_each") {
    table.insert(d_keys.data(), d_values.data(), n, nullptr, d_status.data());
    for (Status s : to_host(d_status, n)) REQUIRE(s.ok());
    CHECK(table.peek_status(test_stream).ok());
    CHECK(table.size(test_stream) == n);
    CHECK(table.load_factor(test_stream) == Approx(double(n) / table.capacity()));

    mwc::device_buffer<V> d_found(2 * n);
    const V missing = V(12345);
    table.find(d_all_keys.data(), 2 * n, d_found.data(), missing, nullptr, d_status.data());
    const auto found = to_host(d_found, 2 * n);
    const auto status = to_host(d_status, 2 * n);
    for (std::size_t i = 0; i < 2 * n; ++i) {
      const auto it = reference.find(keys[i]);
      if (it != reference.end()) {
        REQUIRE(found[i] == it->second);
        REQUIRE(status[i].ok());
      } else {
        REQUIRE(found[i] == missing);
        REQUIRE(status[i].has(Status::key_not_found));
      }
    }
    mwc::device_buffer<bool> d_contained(2 * n);
    table.contains(d_all_keys.data(), 2 * n, d_contained.data(), test_stream);
    const auto contained = to_host(d_contained, 2 * n);
    for (std::size_t i = 0; i < 2 * n; ++i) REQUIRE(contained[i] == (i < n));

    mwc::device_buffer<K> d_out_keys(n);
    mwc::device_buffer<V> d_out_values(n);
    REQUIRE(table.retrieve_all(d_out_keys.data(), d_out_values.data(), test_stream) == n);
    const auto out_keys = to_host(d_out_keys, n);
    const auto out_values = to_host(d_out_values, n);
    std::unordered_map<K, V> retrieved;
    for (std::size_t i = 0; i < n; ++i) retrieved[out_keys[i]] = out_values[i];
    CHECK(retrieved == reference);

    mwc::device_buffer<unsigned long long> d_sum(1);
    d_sum.fill_bytes(0, test_stream);
    unsigned long long* sum = d_sum.data();
    table.for_each([=] __device__(K key, V value) {
      atomicAdd(sum, (unsigned long long)(key) ^ (unsigned long long)(value));
    }, test_stream);
    unsigned long long expected = 0;
    for (const auto& [k, v] : reference) expected += (unsigned long long)(k) ^ (unsigned long long)(v);
    CHECK(to_host(d_sum, 1)[0] == expected);
  }

  SECTION("duplicate keys keep one value and warn") {
    std::vector<K> dup_keys;
    std::vector<V> dup_values;
    std::unordered_map<K, std::unordered_set<V>> allowed;
    for (std::size_t i = 0; i < 2000; ++i) {
      const std::size_t copies = 1 + i % 7;
      for (std::size_t c = 0; c < copies; ++c) {
        dup_keys.push_back(inserted[i]);
        dup_values.push_back(V(i * 10 + c));
        allowed[inserted[i]].insert(V(i * 10 + c));
      }
    }
    auto d_dup_keys = to_device(dup_keys);
    auto d_dup_values = to_device(dup_values);
    table.insert(d_dup_keys.data(), d_dup_values.data(), dup_keys.size(), test_stream);
    CHECK(table.peek_status(test_stream).has(Status::duplicate_key));
    CHECK_FALSE(table.peek_status(test_stream).has_error());
    CHECK(table.size(test_stream) == allowed.size());
    mwc::device_buffer<V> d_found(dup_keys.size());
    table.find(d_dup_keys.data(), dup_keys.size(), d_found.data(), {}, test_stream);
    const auto found = to_host(d_found, dup_keys.size());
    for (std::size_t i = 0; i < dup_keys.size(); ++i) REQUIRE(allowed[dup_keys[i]].count(found[i]) == 1);
    // All copies of a key agree on its single value.
    for (std::size_t i = 1; i < dup_keys.size(); ++i) {
      if (dup_keys[i] == dup_keys[i - 1]) REQUIRE(found[i] == found[i - 1]);
    }
  }

  SECTION("sentinel keys are rejected, empty input is a no-op") {
    const std::vector<K> bad = {KeySentinels<K>::empty, KeySentinels<K>::tombstone, inserted[0]};
    const std::vector<V> bad_values = {V(1), V(2), V(3)};
    auto d_bad = to_device(bad);
    auto d_bad_values = to_device(bad_values);
    table.insert(d_bad.data(), d_bad_values.data(), 3, nullptr, d_status.data());
    const auto status = to_host(d_status, 3);
    CHECK(status[0].has(Status::invalid_key));
    CHECK(status[1].has(Status::invalid_key));
    CHECK(status[2].ok());
    CHECK(table.peek_status(test_stream).has(Status::invalid_key));
    CHECK(table.pop_status(test_stream).has_error());
    CHECK(table.peek_status(test_stream).ok());
    CHECK(table.size(test_stream) == 1);
    table.insert(d_keys.data(), d_values.data(), 0, test_stream);
    table.find(d_keys.data(), 0, static_cast<V*>(nullptr), {}, test_stream);
    table.erase(d_keys.data(), 0, test_stream);
    CHECK(table.size(test_stream) == 1);
    CHECK(table.peek_status(test_stream).ok());
  }

  SECTION("erase then reinsert reuses slots without duplicating keys") {
    table.insert(d_keys.data(), d_values.data(), n, test_stream);
    const std::size_t erased = n / 2;
    table.erase(d_keys.data(), erased, nullptr, d_status.data());
    for (Status s : to_host(d_status, erased)) REQUIRE(s.ok());
    CHECK(table.size(test_stream) == n - erased);
    mwc::device_buffer<bool> d_contained(n);
    table.contains(d_keys.data(), n, d_contained.data(), test_stream);
    const auto contained = to_host(d_contained, n);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(contained[i] == (i >= erased));

    // Reinsert everything with new values: erased keys get them, others warn.
    std::vector<V> new_values(n);
    for (std::size_t i = 0; i < n; ++i) new_values[i] = V(values[i] + 1);
    auto d_new_values = to_device(new_values);
    table.pop_status(test_stream);
    table.insert(d_keys.data(), d_new_values.data(), n, test_stream);
    CHECK(table.peek_status(test_stream).has(Status::duplicate_key));
    CHECK(table.size(test_stream) == n);
    mwc::device_buffer<K> d_out_keys(n);
    REQUIRE(table.retrieve_all(d_out_keys.data(), nullptr, test_stream) == n);
    const auto out_keys = to_host(d_out_keys, n);
    CHECK(std::unordered_set<K>(out_keys.begin(), out_keys.end()).size() == n);
    mwc::device_buffer<V> d_found(n);
    table.find(d_keys.data(), n, d_found.data(), {}, test_stream);
    const auto found = to_host(d_found, n);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(found[i] == (i < erased ? new_values[i] : values[i]));
  }

  SECTION("a full table reports table_full and does not hang") {
    Table small(1000, {}, test_stream);
    const std::size_t too_many = small.capacity() + 500;
    auto more_keys = distinct_keys<K>(too_many, 99);
    auto d_more = to_device(more_keys);
    auto d_more_values = to_device(random_values<V>(too_many, 98));
    small.insert(d_more.data(), d_more_values.data(), too_many, nullptr, d_status.data());
    CHECK(small.peek_status(test_stream).has(Status::table_full));
    CHECK(small.size(test_stream) == small.capacity());
    const auto status = to_host(d_status, too_many);
    CHECK(std::count_if(status.begin(), status.end(), [](Status s) { return s.has(Status::table_full); }) == 500);
    // Every key reported ok is findable.
    mwc::device_buffer<bool> d_contained(too_many);
    small.contains(d_more.data(), too_many, d_contained.data(), test_stream);
    const auto contained = to_host(d_contained, too_many);
    for (std::size_t i = 0; i < too_many; ++i) REQUIRE(contained[i] == status[i].ok());
    // Misses in a full table terminate too.
    mwc::device_buffer<V> d_found(n);
    small.find(d_all_keys.data() + n, n, d_found.data(), {}, test_stream);
    mwc::check(cudaDeviceSynchronize(), "find in a full table");
  }
}

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

    const std::size_t q = queries.size();
    mwc::device_buffer<std::uint64_t> d_offsets(q + 1);
    const std::uint64_t total = table.retrieve_offsets(d_queries.data(), q, d_offsets.data(), test_stream);
    REQUIRE(total == n);
    mwc::device_buffer<V> d_out(total);
    table.retrieve(d_queries.data(), q, d_offsets.data(), d_out.data(), test_stream);
    const auto offsets = to_host(d_offsets, q + 1);
    const auto out = to_host(d_out, total);
    for (std::size_t i = 0; i < q; ++i) {
      std::vector<V> got(out.begin() + offsets[i], out.begin() + offsets[i + 1]);
      std::vector<V> expected;
      if (auto it = reference.find(queries[i]); it != reference.end()) expected = it->second;
      std::sort(got.begin(), got.end());
      std::sort(expected.begin(), expected.end());
      REQUIRE(got == expected);
    }

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

    mwc::device_buffer<unsigned long long> d_sum(2);
    d_sum.fill_bytes(0, test_stream);
    unsigned long long* sum = d_sum.data();
    table.for_each([=] __device__(K key, V value) {
      atomicAdd(sum, 1ull);
      atomicAdd(sum + 1, (unsigned long long)(key) * 31 + (unsigned long long)(value));
    }, test_stream);
    unsigned long long expected_sum = 0;
    for (std::size_t i = 0; i < n; ++i) expected_sum += (unsigned long long)(keys[i]) * 31 + values[i];
    const auto sums = to_host(d_sum, 2);
    CHECK(sums[0] == n);
    CHECK(sums[1] == expected_sum);
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

TEST_CASE("SingleValueHashTable u32/u32 packed, double hashing") { check_single_value_table<SingleU32>(); }

TEST_CASE("SingleValueHashTable u64/u64 array-of-structs, linear probing, group 1") {
  check_single_value_table<SingleU64Linear>();
}

TEST_CASE("SingleValueHashTable u32/u32 packed, double hashing, group 32") {
  check_single_value_table<SingleU32Group32>();
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
