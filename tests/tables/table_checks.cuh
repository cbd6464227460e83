#pragma once
// The one check suite of the tables with a single value per key (single
// value, bucketed cuckoo, iceberg, portable map) against std::unordered_map,
// and what every family's suite uses (multi_value_checks.cuh,
// key_table_checks.cuh). A table's test file runs its row of the matrix
// (table_matrix.cuh) with TEMPLATE_LIST_TEST_CASE and calls the suite with
// how the table is made and what it promises:
//   check_single_value_table<Table>(make, traits): unique keys (hits, misses,
//     contains, size, load factor, retrieve_all, for_each where the table
//     has it), duplicates in one bulk insert and against
//     stored keys, sentinel keys rejected, erase then reinsert, and what a
//     table does with more pairs than slots.
// `make(min_capacity, stream)` builds an empty table.
#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "catch_templates.hpp"
#include "gpu_test_support.cuh"
#include "metawarp/tables/status.hpp"

namespace metawarp::tables::testing {

// A stream that orders with the legacy default stream, which the test
// helpers' copies (to_device / to_host) use.
class BlockingStream {
 public:
  BlockingStream() { cuda::check(cudaStreamCreate(&handle_), "cudaStreamCreate"); }
  ~BlockingStream() { cudaStreamDestroy(handle_); }
  BlockingStream(const BlockingStream&) = delete;
  BlockingStream& operator=(const BlockingStream&) = delete;
  operator cudaStream_t() const { return handle_; }
  cudaStream_t get() const { return handle_; }

 private:
  cudaStream_t handle_ = nullptr;
};

// What a bulk insert does with more pairs than the table holds.
enum class WhenFull {
  reports_pair,  // the pairs that do not fit report table_full, all others are stored (iceberg)
  loses_pairs,   // table_full in the status; the table may have lost pairs: rebuild (cuckoo)
  grows,         // the insert grows the table first (portable map)
};

struct TableTraits {
  WhenFull when_full = WhenFull::reports_pair;
  // Duplicates in one bulk insert: exactly one occurrence reports ok, the
  // others duplicate_key (else only the table's status must warn).
  bool exact_duplicate_status = false;
  // reports_pair: a bulk insert of more pairs than slots leaves no slot empty
  // (the probing visits every slot before it gives up).
  bool fills_every_slot = false;
};

// make(min_capacity, stream) for a table constructed from (capacity, options, stream).
template <class Table, class Options>
auto made_with(Options options) {
  return [options](std::uint64_t capacity, cudaStream_t stream) {
    return Table(capacity, options, stream);
  };
}

// Each pair's status of a bulk insert with status_out.
template <class Table, class K, class V>
std::vector<Status> insert_with_status(Table& table, const cuda::device_buffer<K>& keys,
                                       const cuda::device_buffer<V>& values, std::size_t n,
                                       cudaStream_t stream) {
  cuda::device_buffer<Status> d_status(std::max<std::size_t>(n, 1));
  table.insert(keys.data(), values.data(), n, stream, d_status.data());
  return to_host(d_status, n);
}

// The checks below that depend only on the key and value types are
// templates of K and V (or plain functions), not of the table: the
// configurations of a test file sharing K and V share their host code
// (Catch2's assertions are most of a test's compile time).

inline void require_all(const std::vector<Status>& status, Status::bits_type expected) {
  for (Status s : status) REQUIRE(s.bits() == expected);
}

// Pairs whose insert reported ok; every other status must be exactly
// `other` (duplicate_key, table_full) and no key may report ok twice.
template <class K, class V>
std::unordered_map<K, V> ok_pairs(const std::vector<Status>& status, const std::vector<K>& keys,
                                  const std::vector<V>& values, Status::bits_type other) {
  std::unordered_map<K, V> out;
  for (std::size_t i = 0; i < status.size(); ++i) {
    REQUIRE((status[i].ok() || status[i].bits() == other));
    if (status[i].ok()) REQUIRE(out.emplace(keys[i], values[i]).second);
  }
  return out;
}

// (keys[i], values[i]) as a map; fails on a key present twice.
template <class K, class V>
std::unordered_map<K, V> as_map(const std::vector<K>& keys, const std::vector<V>& values) {
  std::unordered_map<K, V> out;
  for (std::size_t i = 0; i < keys.size(); ++i) REQUIRE(out.emplace(keys[i], values[i]).second);
  return out;
}

// found[i] == expected[i] with status ok for i < hits; `missing` with
// key_not_found after.
template <class V>
void check_hits_then_misses(const std::vector<V>& found, const std::vector<Status>& status,
                            const std::vector<V>& expected, std::size_t hits, V missing) {
  for (std::size_t i = 0; i < found.size(); ++i) {
    REQUIRE(found[i] == (i < hits ? expected[i] : missing));
    REQUIRE(status[i].bits() == (i < hits ? 0u : Status::key_not_found));
  }
}

inline void check_contained(const std::vector<bool>& contained, std::size_t first,
                            std::size_t last) {
  for (std::size_t i = 0; i < contained.size(); ++i) {
    REQUIRE(contained[i] == (i >= first && i < last));
  }
}

// for_each's functor: counts the pairs and adds up key * 31 + value.
template <class K, class V>
struct SumPairs {
  unsigned long long* sums = nullptr;  // [count, sum]
  __device__ void operator()(K key, V value) const {
    atomicAdd(sums, 1ull);
    atomicAdd(sums + 1, (unsigned long long)(key) * 31 + (unsigned long long)(value));
  }
};

// [count, sum] of SumPairs over what table.for_each passes.
template <class Table>
std::vector<unsigned long long> for_each_sums(const Table& table, cudaStream_t stream) {
  cuda::device_buffer<unsigned long long> d_sums(2);
  d_sums.fill_bytes(0, stream);
  table.for_each(SumPairs<typename Table::key_type, typename Table::value_type>{d_sums.data()},
                 stream);
  return to_host(d_sums, 2);
}

// [count, sum] of SumPairs over the pairs (keys[i], values[i]).
template <class K, class V>
std::vector<unsigned long long> expected_sums(const std::vector<K>& keys,
                                              const std::vector<V>& values) {
  std::vector<unsigned long long> sums = {keys.size(), 0};
  for (std::size_t i = 0; i < keys.size(); ++i) {
    sums[1] += (unsigned long long)(keys[i]) * 31 + (unsigned long long)(values[i]);
  }
  return sums;
}

// Every stored pair as a map; fails on a key stored twice.
template <class Table>
std::unordered_map<typename Table::key_type, typename Table::value_type> stored_pairs(
    const Table& table, cudaStream_t stream) {
  using K = typename Table::key_type;
  using V = typename Table::value_type;
  std::vector<K> keys;
  std::vector<V> values;
  if constexpr (requires { table.download(stream); }) {  // the portable map: its host copy
    table.download(stream).for_each([&](K k, V v) {
      keys.push_back(k);
      values.push_back(v);
    });
  } else {
    const std::uint64_t capacity = table.capacity();
    cuda::device_buffer<K> d_keys(capacity);
    cuda::device_buffer<V> d_values(capacity);
    const std::uint64_t n = table.retrieve_all(d_keys.data(), d_values.data(), stream);
    keys = to_host(d_keys, n);
    values = to_host(d_values, n);
  }
  return as_map(keys, values);
}

template <class Table, class Make>
void check_single_value_table(Make make, TableTraits traits) {
  using K = typename Table::key_type;
  using V = typename Table::value_type;
  namespace mwc = metawarp::cuda;
  const std::size_t n = 20000;
  const auto keys = distinct_keys<K>(2 * n, 21);  // first n inserted, the rest are misses
  const auto values = random_values<V>(2 * n, 22);
  const std::vector<K> inserted(keys.begin(), keys.begin() + n);
  std::unordered_map<K, V> reference;
  for (std::size_t i = 0; i < n; ++i) reference[inserted[i]] = values[i];
  BlockingStream stream;
  Table table = make(std::uint64_t(n / 0.8), stream.get());
  auto d_keys = to_device(inserted);
  auto d_all_keys = to_device(keys);
  auto d_values = to_device(values);
  mwc::device_buffer<Status> d_status(2 * n);
  mwc::device_buffer<V> d_found(2 * n);
  const V missing = V(12345);

  SECTION("unique keys: hits, misses, contains, size, retrieve_all, for_each") {
    require_all(insert_with_status(table, d_keys, d_values, n, stream), 0);
    CHECK(table.peek_status(stream).ok());
    CHECK(table.size(stream) == n);
    CHECK(table.load_factor(stream) == Approx(double(n) / double(table.capacity())));
    table.find(d_all_keys.data(), 2 * n, d_found.data(), missing, stream, d_status.data());
    check_hits_then_misses(to_host(d_found, 2 * n), to_host(d_status, 2 * n), values, n, missing);
    mwc::device_buffer<bool> d_contained(2 * n);
    table.contains(d_all_keys.data(), 2 * n, d_contained.data(), stream);
    check_contained(to_host(d_contained, 2 * n), 0, n);
    CHECK(stored_pairs(table, stream) == reference);
    if constexpr (requires { table.for_each(SumPairs<K, V>{}, stream.get()); }) {
      const std::vector<V> inserted_values(values.begin(), values.begin() + n);
      CHECK(for_each_sums(table, stream) == expected_sums(inserted, inserted_values));
    }
  }

  SECTION("duplicates in one bulk insert and against stored keys") {
    // Keys [0, 3000) stored first; the batch repeats keys [0, 6000) 1 to 5
    // times each, copies side by side (so they race in one warp).
    const std::size_t old_count = 3000, batch_keys = 6000;
    table.insert(d_keys.data(), d_values.data(), old_count, stream);
    std::vector<K> dup_keys;
    std::vector<V> dup_values;
    std::unordered_map<K, std::unordered_set<V>> allowed;
    for (std::size_t i = 0; i < batch_keys; ++i) {
      for (std::size_t c = 0; c < 1 + i % 5; ++c) {
        dup_keys.push_back(inserted[i]);
        dup_values.push_back(V(i * 10 + c));
        if (i >= old_count) allowed[inserted[i]].insert(V(i * 10 + c));
      }
    }
    for (std::size_t i = 0; i < old_count; ++i) allowed[inserted[i]] = {values[i]};
    auto d_dup_keys = to_device(dup_keys);
    auto d_dup_values = to_device(dup_values);
    const auto status =
        insert_with_status(table, d_dup_keys, d_dup_values, dup_keys.size(), stream);
    CHECK(table.peek_status(stream).has(Status::duplicate_key));
    CHECK_FALSE(table.peek_status(stream).has_error());
    CHECK(table.size(stream) == batch_keys);
    const auto stored = stored_pairs(table, stream);
    REQUIRE(stored.size() == batch_keys);
    for (const auto& [k, v] : stored) REQUIRE(allowed.at(k).count(v) == 1);
    if (traits.exact_duplicate_status) {
      // One ok per new key, carrying the stored value; none for stored keys.
      const auto oks = ok_pairs(status, dup_keys, dup_values, Status::duplicate_key);
      CHECK(oks.size() == batch_keys - old_count);
      for (const auto& [k, v] : oks) REQUIRE(stored.at(k) == v);
    }
  }

  SECTION("sentinel keys are rejected, empty input is a no-op") {
    const std::vector<K> bad = {KeySentinels<K>::empty, KeySentinels<K>::tombstone, inserted[0]};
    const std::vector<V> bad_values = {V(1), V(2), V(3)};
    auto d_bad = to_device(bad);
    auto d_bad_values = to_device(bad_values);
    const auto status = insert_with_status(table, d_bad, d_bad_values, 3, stream);
    CHECK(status[0].has(Status::invalid_key));
    CHECK(status[1].has(Status::invalid_key));
    CHECK(status[2].ok());
    CHECK(table.pop_status(stream).has(Status::invalid_key));
    CHECK(table.peek_status(stream).ok());
    CHECK(table.size(stream) == 1);
    table.find(d_bad.data(), 2, d_found.data(), missing, stream, d_status.data());
    const auto find_status = to_host(d_status, 2);
    CHECK(find_status[0].has(Status::invalid_key));
    CHECK(find_status[1].has(Status::invalid_key));
    table.insert(d_keys.data(), d_values.data(), 0, stream);
    table.erase(d_keys.data(), 0, stream);
    CHECK(table.size(stream) == 1);
  }

  SECTION("erase then reinsert") {
    table.insert(d_keys.data(), d_values.data(), n, stream);
    const std::size_t erased = n / 2;
    table.erase(d_keys.data(), erased, stream, d_status.data());
    require_all(to_host(d_status, erased), 0);
    table.erase(d_keys.data(), erased, stream, d_status.data());  // again: all absent now
    require_all(to_host(d_status, erased), Status::key_not_found);
    CHECK(table.size(stream) == n - erased);
    mwc::device_buffer<bool> d_contained(n);
    table.contains(d_keys.data(), n, d_contained.data(), stream);
    check_contained(to_host(d_contained, n), erased, n);

    std::vector<V> new_values(erased);
    for (std::size_t i = 0; i < erased; ++i) new_values[i] = V(values[i] + 1);
    auto d_new_values = to_device(new_values);
    require_all(insert_with_status(table, d_keys, d_new_values, erased, stream), 0);
    CHECK(table.size(stream) == n);
    table.find(d_keys.data(), n, d_found.data(), missing, stream);
    const auto found = to_host(d_found, n);
    for (std::size_t i = 0; i < n; ++i) {
      REQUIRE(found[i] == (i < erased ? new_values[i] : values[i]));
    }
  }

  SECTION("more pairs than slots") {
    Table small = make(n / 2, stream.get());
    const std::size_t offered = 2 * n;
    const auto status = insert_with_status(small, d_all_keys, d_values, offered, stream);
    const Status total = small.peek_status(stream);
    if (traits.when_full == WhenFull::grows) {
      CHECK(total.ok());
      CHECK(small.capacity() >= offered);
      std::unordered_map<K, V> all;
      for (std::size_t i = 0; i < offered; ++i) all[keys[i]] = values[i];
      CHECK(stored_pairs(small, stream) == all);
      return;
    }
    CHECK(total.has(Status::table_full));
    if (traits.when_full == WhenFull::loses_pairs) return;
    // reports_pair: exactly the pairs reporting ok are stored, with their
    // values; lookups of the others (misses in a full table) end too.
    const auto stored_ok = ok_pairs(status, keys, values, Status::table_full);
    CHECK(stored_ok.size() <= small.capacity());
    CHECK(stored_ok.size() > small.capacity() / 2);
    if (traits.fills_every_slot) CHECK(stored_ok.size() == small.capacity());
    CHECK(stored_pairs(small, stream) == stored_ok);
    small.find(d_all_keys.data(), offered, d_found.data(), missing, stream);
    const auto found = to_host(d_found, offered);
    for (std::size_t i = 0; i < offered; ++i) {
      const auto it = stored_ok.find(keys[i]);
      REQUIRE(found[i] == (it == stored_ok.end() ? missing : it->second));
    }
  }
}

// check_single_value_table as the calling test case's section "shared
// checks", on tables made from (capacity, options, stream).
template <class Table, class Options>
void shared_checks_section(const Options& options, TableTraits traits) {
  SECTION("shared checks") { check_single_value_table<Table>(made_with<Table>(options), traits); }
}

// What a table test's own sections work with: a stream and n distinct keys
// (key_seed) with random values (value_seed), on the host, as a map and on
// the device; taken apart where the test starts:
//   auto&& [stream, n, keys, values, reference, d_keys, d_values] = DevicePairsOf<Table>(...);
template <class K, class V>
struct DevicePairs {
  DevicePairs(std::size_t count, std::uint64_t key_seed, std::uint64_t value_seed)
      : n(count),
        keys(distinct_keys<K>(count, key_seed)),
        values(random_values<V>(count, value_seed)),
        d_keys(to_device(keys)),
        d_values(to_device(values)) {
    for (std::size_t i = 0; i < n; ++i) reference[keys[i]] = values[i];
  }

  BlockingStream stream;
  std::size_t n;
  std::vector<K> keys;
  std::vector<V> values;
  std::unordered_map<K, V> reference;
  cuda::device_buffer<K> d_keys;
  cuda::device_buffer<V> d_values;
};
template <class Table>
using DevicePairsOf = DevicePairs<typename Table::key_type, typename Table::value_type>;

}  // namespace metawarp::tables::testing
