#pragma once
// The check suite of the tables with several values per key (multi value,
// bucket list, CSR), against std::unordered_multimap:
//   check_multi_value_lookups(table, keys, values, stream): count / retrieve /
//     contains of every stored key and of misses (every such table, the
//     static CSR table included);
//   check_multi_value_table<Table>(make): the tables filled by inserts
//     (multi value, bucket list): insert then the lookups, retrieve_all and
//     for_each; sentinel keys and empty input; erase then reinsert; more
//     keys than key slots (table_full, every slot taken).
// `make(distinct_keys, pairs, stream)` builds an empty table for that many
// keys and pairs.
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "table_checks.cuh"

namespace metawarp::tables::testing {

// Each key's values, sorted (a multimap compared as sorted lists per key).
template <class K, class V>
std::map<K, std::vector<V>> grouped(const std::vector<K>& keys, const std::vector<V>& values) {
  std::map<K, std::vector<V>> out;
  for (std::size_t i = 0; i < keys.size(); ++i) out[keys[i]].push_back(values[i]);
  for (auto& [k, vs] : out) std::sort(vs.begin(), vs.end());
  return out;
}

// count / retrieve / contains of every stored key and of misses against
// std::unordered_multimap (values of a key compared as sorted lists).
template <class Table, class K, class V>
void check_multi_value_lookups(const Table& table, const std::vector<K>& keys,
                               const std::vector<V>& values, cudaStream_t stream) {
  namespace mwc = metawarp::cuda;
  std::unordered_multimap<K, V> reference;
  for (std::size_t i = 0; i < keys.size(); ++i) reference.emplace(keys[i], values[i]);
  std::vector<K> queries;
  std::unordered_set<K> distinct;
  for (K k : keys) {
    if (distinct.insert(k).second) queries.push_back(k);
  }
  for (K k : distinct_keys<K>(2000, 999)) {
    if (!reference.count(k)) queries.push_back(k);
  }
  auto d_queries = to_device(queries);
  mwc::device_buffer<std::uint64_t> d_offsets(queries.size() + 1);
  const std::uint64_t total =
      table.retrieve_offsets(d_queries.data(), queries.size(), d_offsets.data(), stream);
  REQUIRE(total == keys.size());
  mwc::device_buffer<V> d_out(std::max<std::uint64_t>(total, 1));
  table.retrieve(d_queries.data(), queries.size(), d_offsets.data(), d_out.data(), stream);
  const auto offsets = to_host(d_offsets, queries.size() + 1);
  const auto out = to_host(d_out, total);
  for (std::size_t i = 0; i < queries.size(); ++i) {
    std::vector<V> got(out.begin() + offsets[i], out.begin() + offsets[i + 1]);
    std::sort(got.begin(), got.end());
    REQUIRE(got == expected_values(reference, queries[i]));
  }
  mwc::device_buffer<bool> d_found(queries.size());
  table.contains(d_queries.data(), queries.size(), d_found.data(), stream);
  const auto found = to_host(d_found, queries.size());
  for (std::size_t i = 0; i < queries.size(); ++i) {
    REQUIRE(found[i] == (reference.count(queries[i]) > 0));
  }
}

// Pairs over `distinct` keys (unique, in this order) with multiplicities
// 1, 2, 3, 5, 10, 33, 100, 1000, 10000 for the first nine keys, then
// 1..17; values distinct (results compare as multisets); shuffled so that
// copies of a key are inserted concurrently.
template <class K, class V>
struct MultiValueData {
  std::vector<K> unique;
  std::vector<K> keys;
  std::vector<V> values;

  explicit MultiValueData(std::size_t distinct) : unique(distinct_keys<K>(distinct, 21)) {
    const std::size_t multiplicities[] = {1, 2, 3, 5, 10, 33, 100, 1000, 10000};
    std::size_t next_value = 0;
    for (std::size_t i = 0; i < distinct; ++i) {
      const std::size_t m = i < 9 ? multiplicities[i] : 1 + i % 17;
      for (std::size_t c = 0; c < m; ++c) {
        keys.push_back(unique[i]);
        values.push_back(V(next_value++) * 2654435761u);  // odd factor: still distinct
      }
    }
    std::mt19937_64 rng(5);
    for (std::size_t i = keys.size(); i > 1; --i) {
      const std::size_t j = rng() % i;
      std::swap(keys[i - 1], keys[j]);
      std::swap(values[i - 1], values[j]);
    }
  }
};

// Values stored per query key after the first `erased` keys of `queries` were erased.
template <class K>
std::vector<std::uint64_t> expected_counts(const std::unordered_map<K, std::uint64_t>& copies,
                                           const std::vector<K>& queries, std::size_t erased) {
  std::vector<std::uint64_t> out(queries.size(), 0);
  for (std::size_t i = erased; i < queries.size(); ++i) {
    const auto it = copies.find(queries[i]);
    if (it != copies.end()) out[i] = it->second;
  }
  return out;
}

template <class Table, class Make>
void check_multi_value_table(Make make) {
  using K = typename Table::key_type;
  using V = typename Table::value_type;
  namespace mwc = metawarp::cuda;
  const std::size_t distinct = 3000;
  const MultiValueData<K, V> data(distinct);
  const auto& [unique, keys, values] = data;
  const std::size_t n = keys.size();
  std::unordered_map<K, std::uint64_t> copies;
  for (K k : keys) ++copies[k];
  // The stored keys in data order (the heavy ones first), then misses.
  std::vector<K> queries = unique;
  for (K k : distinct_keys<K>(5000, 77)) {
    if (!copies.count(k)) queries.push_back(k);
  }
  BlockingStream stream;
  Table table = make(distinct, n, stream.get());
  auto d_keys = to_device(keys);
  auto d_values = to_device(values);
  auto d_queries = to_device(queries);
  mwc::device_buffer<std::uint64_t> d_counts(queries.size());

  SECTION("insert, then count / retrieve / contains, retrieve_all and for_each") {
    require_all(insert_with_status(table, d_keys, d_values, n, stream), 0);
    CHECK(table.peek_status(stream).ok());
    CHECK(table.size(stream) == n);
    check_multi_value_lookups(table, keys, values, stream);
    mwc::device_buffer<K> d_all_keys(n);
    mwc::device_buffer<V> d_all_values(n);
    REQUIRE(table.retrieve_all(d_all_keys.data(), d_all_values.data(), stream) == n);
    CHECK(grouped(to_host(d_all_keys, n), to_host(d_all_values, n)) == grouped(keys, values));
    CHECK(for_each_sums(table, stream) == expected_sums(keys, values));
  }

  SECTION("sentinel keys are rejected, empty input is a no-op") {
    const std::vector<K> bad = {KeySentinels<K>::empty, KeySentinels<K>::tombstone};
    auto d_bad = to_device(bad);
    const auto status = insert_with_status(table, d_bad, d_values, 2, stream);
    CHECK(status[0].has(Status::invalid_key));
    CHECK(status[1].has(Status::invalid_key));
    CHECK(table.pop_status(stream).has(Status::invalid_key));
    CHECK(table.size(stream) == 0);
    table.insert(d_keys.data(), d_values.data(), 0, stream);
    mwc::device_buffer<std::uint64_t> d_offsets(1);
    CHECK(table.retrieve_offsets(d_queries.data(), 0, d_offsets.data(), stream) == 0);
    CHECK(table.size(stream) == 0);
    CHECK(table.peek_status(stream).ok());
  }

  SECTION("erase then reinsert") {
    table.insert(d_keys.data(), d_values.data(), n, stream);
    const std::size_t erased_keys = 100;  // the heavy keys among them
    table.erase(d_queries.data(), erased_keys, stream);
    std::uint64_t remaining = n;
    for (std::size_t i = 0; i < erased_keys; ++i) remaining -= copies.at(queries[i]);
    CHECK(table.size(stream) == remaining);
    table.count(d_queries.data(), queries.size(), d_counts.data(), stream);
    CHECK(to_host(d_counts, queries.size()) == expected_counts(copies, queries, erased_keys));
    // Reinsert the pairs of the erased keys.
    const std::unordered_set<K> erased(queries.begin(), queries.begin() + erased_keys);
    std::vector<K> again_keys;
    std::vector<V> again_values;
    for (std::size_t i = 0; i < n; ++i) {
      if (erased.count(keys[i])) {
        again_keys.push_back(keys[i]);
        again_values.push_back(values[i]);
      }
    }
    auto d_again_keys = to_device(again_keys);
    auto d_again_values = to_device(again_values);
    table.insert(d_again_keys.data(), d_again_values.data(), again_keys.size(), stream);
    CHECK_FALSE(table.peek_status(stream).has_error());
    CHECK(table.size(stream) == n);
    table.count(d_queries.data(), queries.size(), d_counts.data(), stream);
    CHECK(to_host(d_counts, queries.size()) == expected_counts(copies, queries, 0));
    check_multi_value_lookups(table, keys, values, stream);
  }

  SECTION("more keys than key slots: table_full, every slot taken") {
    // No slot ever frees while inserts run, so an insert that found none
    // passed every slot taken: all of them end up holding a key.
    Table small = make(200, 200, stream.get());
    const std::size_t offered = small.capacity() + 100;
    auto d_many = to_device(distinct_keys<K>(offered, 5));
    auto d_many_values = to_device(random_values<V>(offered, 6));
    small.insert(d_many.data(), d_many_values.data(), offered, stream);
    CHECK(small.peek_status(stream).has(Status::table_full));
    CHECK(small.size(stream) == small.capacity());  // one value per key
  }
}

}  // namespace metawarp::tables::testing
