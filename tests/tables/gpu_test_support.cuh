#pragma once
// Small helpers for the table GPU tests: host<->device vectors, random keys
// and values, a multimap's values of a key.
#include <algorithm>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/tables/sentinels.hpp"

namespace metawarp::tables::testing {

// The stream every table call of these tests names. The tests copy with
// cudaMemcpy / cudaDeviceSynchronize between steps, so they run on the legacy
// default stream on purpose (it orders with those calls); the library itself
// never picks a stream for its caller.
inline const cudaStream_t test_stream = cudaStreamLegacy;

template <class T>
cuda::device_buffer<T> to_device(const std::vector<T>& host) {
  cuda::device_buffer<T> buffer(host.size());
  buffer.copy_from_host(host.data(), host.size(), test_stream);
  return buffer;
}

template <class T>
std::vector<T> to_host(const cuda::device_buffer<T>& buffer, std::size_t count) {
  std::vector<T> host(count);
  buffer.copy_to_host(host.data(), count, test_stream);
  cuda::check(cudaDeviceSynchronize(), "test copy to host");
  return host;
}

inline std::vector<bool> to_host(const cuda::device_buffer<bool>& buffer, std::size_t count) {
  std::vector<char> bytes(count);
  static_assert(sizeof(bool) == 1);
  buffer.copy_to_host(reinterpret_cast<bool*>(bytes.data()), count, test_stream);
  cuda::check(cudaDeviceSynchronize(), "test copy to host");
  return std::vector<bool>(bytes.begin(), bytes.end());
}

// n distinct valid keys (never a sentinel), random order.
template <class K>
std::vector<K> distinct_keys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::unordered_set<K> seen;
  std::vector<K> keys;
  keys.reserve(n);
  while (keys.size() < n) {
    const K k = K(rng());
    if (KeySentinels<K>::is_valid(k) && seen.insert(k).second) keys.push_back(k);
  }
  return keys;
}

template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> values(n);
  for (auto& v : values) v = T(rng());
  return values;
}

// n keys from a pool of `distinct`, skewed: low pool indices are drawn much
// more often (multiplicities up to about n / 2).
template <class K>
std::vector<K> keys_with_repeats(std::size_t n, std::size_t distinct, std::uint64_t seed) {
  const auto pool = distinct_keys<K>(distinct, seed);
  std::mt19937_64 rng(seed + 1);
  std::vector<K> keys(n);
  for (auto& k : keys) {
    const std::size_t r = rng() % distinct;
    k = pool[(r * r) / distinct];
  }
  return keys;
}

// The values a reference multimap holds for `key`, sorted (what a lookup must give).
template <class K, class V>
std::vector<V> expected_values(const std::unordered_multimap<K, V>& reference, K key) {
  std::vector<V> out;
  const auto [first, last] = reference.equal_range(key);
  for (auto it = first; it != last; ++it) out.push_back(it->second);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace metawarp::tables::testing
