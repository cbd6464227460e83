// CountingHashTable, HashSet and BloomFilter on the GPU against std
// containers: random data with duplicates, sentinels, empty input, erase then
// reinsert, a full table, and a user kernel calling the device API.
#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "catch_templates.hpp"
#include "gpu_test_support.cuh"
#include "metawarp/tables/bloom_filter.cuh"
#include "metawarp/tables/counting_table.cuh"
#include "metawarp/tables/hash_set.cuh"

namespace mwc = metawarp::cuda;
using namespace metawarp::tables;
using namespace metawarp::tables::testing;

namespace {

// Keys drawn from a small pool so each appears 1..many times.
std::vector<std::uint32_t> keys_with_repeats(std::size_t n, std::size_t distinct, std::uint64_t seed) {
  const auto pool = distinct_keys<std::uint32_t>(distinct, seed);
  std::mt19937_64 rng(seed + 1);
  std::vector<std::uint32_t> keys(n);
  for (auto& k : keys) {
    // Skewed: low pool indices are much more frequent (multiplicities up to ~n/2).
    const std::size_t r = rng() % distinct;
    k = pool[(r * r) / distinct];
  }
  return keys;
}

template <class Ref>
__global__ void count_computed_keys(Ref table, std::uint64_t n) {
  const auto group = cg::tiled_partition<Ref::group_size>(cg::this_thread_block());
  const std::uint64_t i = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / Ref::group_size;
  if (i < n) table.insert(group, std::uint32_t(i % 1000) * 7919u);
}

}  // namespace

TEST_CASE("CountingHashTable counts like unordered_map") {
  using Table = CountingHashTable<std::uint32_t>;
  const auto keys = keys_with_repeats(200000, 20000, 1);
  std::unordered_map<std::uint32_t, std::uint32_t> reference;
  for (auto k : keys) ++reference[k];
  Table table(30000, {}, test_stream);
  auto d_keys = to_device(keys);

  SECTION("counts, size, retrieve_all") {
    table.insert(d_keys.data(), keys.size(), test_stream);
    CHECK(table.peek_status(test_stream).ok());
    CHECK(table.size(test_stream) == reference.size());
    std::vector<std::uint32_t> queries;
    for (const auto& [k, c] : reference) queries.push_back(k);
    const auto absent = distinct_keys<std::uint32_t>(1000, 999);
    for (auto k : absent) if (!reference.count(k)) queries.push_back(k);
    auto d_queries = to_device(queries);
    mwc::device_buffer<std::uint32_t> d_counts(queries.size());
    table.count(d_queries.data(), queries.size(), d_counts.data(), test_stream);
    const auto counts = to_host(d_counts, queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const auto it = reference.find(queries[i]);
      REQUIRE(counts[i] == (it == reference.end() ? 0u : it->second));
    }
    mwc::device_buffer<std::uint32_t> d_out_keys(reference.size()), d_out_counts(reference.size());
    REQUIRE(table.retrieve_all(d_out_keys.data(), d_out_counts.data(), test_stream) == reference.size());
    const auto out_keys = to_host(d_out_keys, reference.size());
    const auto out_counts = to_host(d_out_counts, reference.size());
    std::unordered_map<std::uint32_t, std::uint32_t> got;
    for (std::size_t i = 0; i < out_keys.size(); ++i) got[out_keys[i]] = out_counts[i];
    CHECK(got == reference);
  }
  SECTION("erase then reinsert restarts the count") {
    table.insert(d_keys.data(), keys.size(), test_stream);
    const std::vector<std::uint32_t> victims = {keys[0], keys[1], keys[2]};
    auto d_victims = to_device(victims);
    table.erase(d_victims.data(), victims.size(), test_stream);
    table.insert(d_victims.data(), victims.size(), test_stream);
    mwc::device_buffer<std::uint32_t> d_counts(victims.size());
    table.count(d_victims.data(), victims.size(), d_counts.data(), test_stream);
    const auto counts = to_host(d_counts, victims.size());
    std::unordered_map<std::uint32_t, std::uint32_t> expected;
    for (auto k : victims) ++expected[k];
    for (std::size_t i = 0; i < victims.size(); ++i) CHECK(counts[i] == expected[victims[i]]);
    CHECK(table.size(test_stream) == reference.size());
  }
  SECTION("sentinels, empty input, full table") {
    const std::vector<std::uint32_t> bad = {KeySentinels<std::uint32_t>::empty,
                                            KeySentinels<std::uint32_t>::tombstone};
    auto d_bad = to_device(bad);
    table.insert(d_bad.data(), 2, test_stream);
    table.insert(d_bad.data(), 0, test_stream);
    CHECK(table.peek_status(test_stream).has(Status::invalid_key));
    CHECK(table.size(test_stream) == 0);
    Table small(100, {}, test_stream);
    const auto many = distinct_keys<std::uint32_t>(small.capacity() + 10, 5);
    auto d_many = to_device(many);
    small.insert(d_many.data(), many.size(), test_stream);
    CHECK(small.peek_status(test_stream).has(Status::table_full));
    CHECK(small.size(test_stream) == small.capacity());
  }
  SECTION("device API from a user kernel") {
    const std::uint64_t n = 100000;
    count_computed_keys<<<unsigned((n * Table::group_size + 255) / 256), 256>>>(table.ref(), n);
    mwc::check(cudaDeviceSynchronize(), "user counting kernel");
    CHECK(table.size(test_stream) == 1000);
    std::vector<std::uint32_t> q = {0u, 7919u, 999u * 7919u};
    auto d_q = to_device(q);
    mwc::device_buffer<std::uint32_t> d_c(3);
    table.count(d_q.data(), 3, d_c.data(), test_stream);
    const auto c = to_host(d_c, 3);
    CHECK(c[0] == 100);
    CHECK(c[1] == 100);
    CHECK(c[2] == 100);
  }
}

TEST_CASE("HashSet behaves like unordered_set") {
  using Set = HashSet<std::uint64_t>;
  const auto keys = distinct_keys<std::uint64_t>(60000, 3);
  std::vector<std::uint64_t> with_dups(keys.begin(), keys.begin() + 40000);
  with_dups.insert(with_dups.end(), keys.begin(), keys.begin() + 10000);
  Set set(50000, {}, test_stream);
  auto d_in = to_device(with_dups);
  auto d_all = to_device(keys);
  set.insert(d_in.data(), with_dups.size(), test_stream);
  CHECK(set.peek_status(test_stream).ok());
  CHECK(set.size(test_stream) == 40000);
  mwc::device_buffer<bool> d_found(keys.size());
  set.contains(d_all.data(), keys.size(), d_found.data(), test_stream);
  auto found = to_host(d_found, keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) REQUIRE(found[i] == (i < 40000));

  set.erase(d_all.data(), 20000, test_stream);
  CHECK(set.size(test_stream) == 20000);
  set.insert(d_all.data(), 40000, test_stream);  // reinsert erased + duplicates of the rest
  CHECK(set.size(test_stream) == 40000);
  mwc::device_buffer<std::uint64_t> d_out(40000);
  REQUIRE(set.retrieve_all(d_out.data(), test_stream) == 40000);
  const auto out = to_host(d_out, 40000);
  CHECK(std::unordered_set<std::uint64_t>(out.begin(), out.end()) ==
        std::unordered_set<std::uint64_t>(keys.begin(), keys.begin() + 40000));

  Set small(64, {}, test_stream);
  auto d_many = to_device(std::vector<std::uint64_t>(keys.begin(), keys.begin() + small.capacity() + 5));
  small.insert(d_many.data(), small.capacity() + 5, test_stream);
  CHECK(small.peek_status(test_stream).has(Status::table_full));
  CHECK(small.size(test_stream) == small.capacity());
}

TEMPLATE_TEST_CASE("BloomFilter has no false negatives and about the expected false-positive rate",
                   "[gpu][bloom]", BloomFilter<std::uint32_t>,
                   (BloomFilter<std::uint32_t, MurmurHasher, 1>)) {
  const std::size_t n = 100000;
  const auto keys = distinct_keys<std::uint32_t>(2 * n, 17);
  auto d_keys = to_device(keys);
  TestType filter(n * 10, 6, 0, test_stream);
  CHECK(filter.num_bits() % TestType::block_bits == 0);
  CHECK(filter.num_bits() >= n * 10);
  filter.insert(d_keys.data(), 0, test_stream);
  filter.insert(d_keys.data(), n, test_stream);
  mwc::device_buffer<bool> d_found(2 * n);
  filter.contains(d_keys.data(), 2 * n, d_found.data(), test_stream);
  const auto found = to_host(d_found, 2 * n);
  for (std::size_t i = 0; i < n; ++i) REQUIRE(found[i]);
  const double fpr = double(std::count(found.begin() + n, found.end(), true)) / n;
  const double expected = filter.expected_false_positive_rate(n);
  CHECK(fpr < 2 * expected + 0.002);
  CHECK(fpr > expected / 2);
  filter.clear(test_stream);
  filter.contains(d_keys.data(), n, d_found.data(), test_stream);
  const auto after_clear = to_host(d_found, n);
  CHECK(std::count(after_clear.begin(), after_clear.end(), true) == 0);
  CHECK_THROWS_AS(TestType(1000, 0, 0, test_stream), std::invalid_argument);
}
