#pragma once
// Checks shared by the GPU tests of the single-value tables with the
// explicit-stream bulk API (bucketed cuckoo, iceberg, portable map): unique
// keys against std::unordered_map, duplicates, sentinel keys, erase and
// reinsert. `make(min_capacity, stream)` builds an empty table.
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

template <class Table, class Make>
void check_single_value_semantics(Make make) {
  using K = typename Table::key_type;
  using V = typename Table::value_type;
  namespace mwc = metawarp::cuda;
  const std::size_t n = 20000;
  const auto keys = distinct_keys<K>(2 * n, 21);  // first n inserted, the rest are misses
  const auto values = random_values<V>(n, 22);
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

  SECTION("unique keys: hits, misses, contains, size") {
    table.insert(d_keys.data(), d_values.data(), n, stream, d_status.data());
    for (Status s : to_host(d_status, n)) REQUIRE(s.ok());
    CHECK(table.peek_status(stream).ok());
    CHECK(table.size(stream) == n);
    table.find(d_all_keys.data(), 2 * n, d_found.data(), missing, stream, d_status.data());
    const auto found = to_host(d_found, 2 * n);
    const auto status = to_host(d_status, 2 * n);
    for (std::size_t i = 0; i < 2 * n; ++i) {
      if (i < n) {
        REQUIRE(found[i] == values[i]);
        REQUIRE(status[i].ok());
      } else {
        REQUIRE(found[i] == missing);
        REQUIRE(status[i].has(Status::key_not_found));
      }
    }
    mwc::device_buffer<bool> d_contained(2 * n);
    table.contains(d_all_keys.data(), 2 * n, d_contained.data(), stream);
    const auto contained = to_host(d_contained, 2 * n);
    for (std::size_t i = 0; i < 2 * n; ++i) REQUIRE(contained[i] == (i < n));
  }

  SECTION("duplicate keys keep one of their values and warn") {
    std::vector<K> dup_keys;
    std::vector<V> dup_values;
    std::unordered_map<K, std::unordered_set<V>> allowed;
    for (std::size_t i = 0; i < 3000; ++i) {
      for (std::size_t c = 0; c < 1 + i % 5; ++c) {
        dup_keys.push_back(inserted[i]);
        dup_values.push_back(V(i * 10 + c));
        allowed[inserted[i]].insert(V(i * 10 + c));
      }
    }
    auto d_dup_keys = to_device(dup_keys);
    auto d_dup_values = to_device(dup_values);
    table.insert(d_dup_keys.data(), d_dup_values.data(), dup_keys.size(), stream);
    CHECK(table.peek_status(stream).has(Status::duplicate_key));
    CHECK_FALSE(table.peek_status(stream).has_error());
    CHECK(table.size(stream) == allowed.size());
    table.find(d_dup_keys.data(), dup_keys.size(), d_found.data(), missing, stream);
    const auto found = to_host(d_found, dup_keys.size());
    for (std::size_t i = 0; i < dup_keys.size(); ++i) {
      REQUIRE(allowed[dup_keys[i]].count(found[i]) == 1);
      if (i > 0 && dup_keys[i] == dup_keys[i - 1]) REQUIRE(found[i] == found[i - 1]);
    }
  }

  SECTION("sentinel keys are rejected, empty input is a no-op") {
    const std::vector<K> bad = {KeySentinels<K>::empty, KeySentinels<K>::tombstone, inserted[0]};
    const std::vector<V> bad_values = {V(1), V(2), V(3)};
    auto d_bad = to_device(bad);
    auto d_bad_values = to_device(bad_values);
    table.insert(d_bad.data(), d_bad_values.data(), 3, stream, d_status.data());
    const auto status = to_host(d_status, 3);
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
    for (Status s : to_host(d_status, erased)) REQUIRE(s.ok());
    table.erase(d_keys.data(), erased, stream, d_status.data());  // again: all absent now
    for (Status s : to_host(d_status, erased)) REQUIRE(s.has(Status::key_not_found));
    CHECK(table.size(stream) == n - erased);
    mwc::device_buffer<bool> d_contained(n);
    table.contains(d_keys.data(), n, d_contained.data(), stream);
    const auto contained = to_host(d_contained, n);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(contained[i] == (i >= erased));

    std::vector<V> new_values(erased);
    for (std::size_t i = 0; i < erased; ++i) new_values[i] = V(values[i] + 1);
    auto d_new_values = to_device(new_values);
    table.insert(d_keys.data(), d_new_values.data(), erased, stream, d_status.data());
    for (Status s : to_host(d_status, erased)) REQUIRE(s.ok());
    CHECK(table.size(stream) == n);
    table.find(d_keys.data(), n, d_found.data(), missing, stream);
    const auto found = to_host(d_found, n);
    for (std::size_t i = 0; i < n; ++i) {
      REQUIRE(found[i] == (i < erased ? new_values[i] : values[i]));
    }
  }
}

}  // namespace metawarp::tables::testing
