#pragma once
// The check suites of the tables of keys only, one per table kind:
//   check_counting_table<Table>(): counts against a std::unordered_map of
//     counts (skewed repeats), size, retrieve_all; erase then reinsert
//     restarts a count; sentinel keys, empty input, a full table;
//   check_hash_set<Set>(): against std::unordered_set (duplicates, contains,
//     erase then reinsert, retrieve_all, a full set);
//   check_bloom_filter<Filter>(): no false negatives, a false-positive rate
//     near the expected one, clear.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "table_checks.cuh"

namespace metawarp::tables::testing {

// A table of keys made for 100 keys, offered capacity() + 10 distinct keys:
// table_full, and every slot holds a key (no slot frees while inserts run, so
// an insert that found none passed every slot taken).
template <class Table>
void check_full_table_of_keys(cudaStream_t stream) {
  Table small(100, {}, stream);
  const auto many = distinct_keys<typename Table::key_type>(small.capacity() + 10, 5);
  auto d_many = to_device(many);
  small.insert(d_many.data(), many.size(), stream);
  CHECK(small.peek_status(stream).has(Status::table_full));
  CHECK(small.size(stream) == small.capacity());
}

template <class Table>
void check_counting_table() {
  using K = typename Table::key_type;
  using C = typename Table::value_type;
  namespace mwc = metawarp::cuda;
  const auto keys = keys_with_repeats<K>(200000, 20000, 1);
  std::unordered_map<K, C> reference;
  for (K k : keys) ++reference[k];
  BlockingStream stream;
  Table table(30000, {}, stream);
  auto d_keys = to_device(keys);

  SECTION("counts, size, retrieve_all") {
    table.insert(d_keys.data(), keys.size(), stream);
    CHECK(table.peek_status(stream).ok());
    CHECK(table.size(stream) == reference.size());
    std::vector<K> queries;
    for (const auto& [k, c] : reference) queries.push_back(k);
    for (K k : distinct_keys<K>(1000, 999)) {
      if (!reference.count(k)) queries.push_back(k);
    }
    auto d_queries = to_device(queries);
    mwc::device_buffer<C> d_counts(queries.size());
    table.count(d_queries.data(), queries.size(), d_counts.data(), stream);
    const auto counts = to_host(d_counts, queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const auto it = reference.find(queries[i]);
      REQUIRE(counts[i] == (it == reference.end() ? C(0) : it->second));
    }
    mwc::device_buffer<K> d_out_keys(reference.size());
    mwc::device_buffer<C> d_out_counts(reference.size());
    REQUIRE(table.retrieve_all(d_out_keys.data(), d_out_counts.data(), stream) ==
            reference.size());
    CHECK(as_map(to_host(d_out_keys, reference.size()), to_host(d_out_counts, reference.size())) ==
          reference);
  }

  SECTION("erase then reinsert restarts the count") {
    table.insert(d_keys.data(), keys.size(), stream);
    const std::vector<K> victims = {keys[0], keys[1], keys[2]};
    auto d_victims = to_device(victims);
    table.erase(d_victims.data(), victims.size(), stream);
    table.insert(d_victims.data(), victims.size(), stream);
    mwc::device_buffer<C> d_counts(victims.size());
    table.count(d_victims.data(), victims.size(), d_counts.data(), stream);
    const auto counts = to_host(d_counts, victims.size());
    std::unordered_map<K, C> expected;
    for (K k : victims) ++expected[k];
    for (std::size_t i = 0; i < victims.size(); ++i) CHECK(counts[i] == expected[victims[i]]);
    CHECK(table.size(stream) == reference.size());
  }

  SECTION("sentinel keys, empty input, a full table") {
    const std::vector<K> bad = {KeySentinels<K>::empty, KeySentinels<K>::tombstone};
    auto d_bad = to_device(bad);
    table.insert(d_bad.data(), 2, stream);
    table.insert(d_bad.data(), 0, stream);
    CHECK(table.peek_status(stream).has(Status::invalid_key));
    CHECK(table.size(stream) == 0);
    check_full_table_of_keys<Table>(stream);
  }
}

template <class Set>
void check_hash_set() {
  using K = typename Set::key_type;
  namespace mwc = metawarp::cuda;
  BlockingStream stream;
  const auto keys = distinct_keys<K>(60000, 3);
  std::vector<K> with_dups(keys.begin(), keys.begin() + 40000);
  with_dups.insert(with_dups.end(), keys.begin(), keys.begin() + 10000);
  Set set(50000, {}, stream);
  auto d_in = to_device(with_dups);
  auto d_all = to_device(keys);
  // A present key is a no-op (duplicate_key per item, not in the table's status).
  set.insert(d_in.data(), with_dups.size(), stream);
  CHECK(set.peek_status(stream).ok());
  CHECK(set.size(stream) == 40000);
  mwc::device_buffer<bool> d_found(keys.size());
  set.contains(d_all.data(), keys.size(), d_found.data(), stream);
  check_contained(to_host(d_found, keys.size()), 0, 40000);

  set.erase(d_all.data(), 20000, stream);
  CHECK(set.size(stream) == 20000);
  set.contains(d_all.data(), keys.size(), d_found.data(), stream);
  check_contained(to_host(d_found, keys.size()), 20000, 40000);
  set.insert(d_all.data(), 40000, stream);  // reinsert erased + duplicates of the rest
  CHECK(set.size(stream) == 40000);
  mwc::device_buffer<K> d_out(40000);
  REQUIRE(set.retrieve_all(d_out.data(), stream) == 40000);
  const auto out = to_host(d_out, 40000);
  CHECK(std::unordered_set<K>(out.begin(), out.end()) ==
        std::unordered_set<K>(keys.begin(), keys.begin() + 40000));
  check_full_table_of_keys<Set>(stream);
}

template <class Filter>
void check_bloom_filter() {
  using K = typename Filter::key_type;
  namespace mwc = metawarp::cuda;
  const std::size_t n = 100000;
  const auto keys = distinct_keys<K>(2 * n, 17);
  auto d_keys = to_device(keys);
  Filter filter(n * 10, 6, 0, test_stream);
  CHECK(filter.num_bits() % Filter::block_bits == 0);
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
  CHECK_THROWS_AS(Filter(1000, 0, 0, test_stream), std::invalid_argument);
}

}  // namespace metawarp::tables::testing
