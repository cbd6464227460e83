#pragma once
// Host bulk operations written once over a table's device ref: one group of
// Ref::group_size threads per input, device-resident inputs and outputs,
// asynchronous on the given stream. A Ref provides
//   group_type, group_size
//   Status insert(g, key, value)      (records its status in the table itself)
//   bool find(g, key, value&)   bool contains(g, key)   bool erase(g, key)
// Used by the bucketed cuckoo, iceberg and portable tables; the older tables
// still carry their own copies (to be moved onto this layer).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/tables/launch.cuh"
#include "metawarp/tables/sentinels.hpp"
#include "metawarp/tables/status.hpp"

namespace metawarp::tables::bulk {

// status_out (optional, n entries) receives each pair's status.
template <class Ref, class K, class V>
void insert(const Ref& r, const K* keys, const V* values, std::uint64_t n, cudaStream_t stream,
            Status* status_out, const char* what) {
  launch_group_per_item<Ref::group_size>(n, stream,
      [=] __device__(const typename Ref::group_type& g, std::uint64_t i) {
        const Status s = r.insert(g, keys[i], values[i]);
        if (status_out != nullptr && g.thread_rank() == 0) status_out[i] = s;
      }, what);
}

// values_out[i] = value of keys[i], or not_found_value (status key_not_found,
// or invalid_key for a sentinel).
template <class Ref, class K, class V>
void find(const Ref& r, const K* keys, std::uint64_t n, V* values_out, V not_found_value,
          cudaStream_t stream, Status* status_out, const char* what) {
  launch_group_per_item<Ref::group_size>(n, stream,
      [=] __device__(const typename Ref::group_type& g, std::uint64_t i) {
        V value = not_found_value;
        const K key = keys[i];
        const bool found = r.find(g, key, value);
        if (g.thread_rank() != 0) return;
        values_out[i] = found ? value : not_found_value;
        if (status_out != nullptr) {
          status_out[i] = Status(found ? 0u
                                       : (KeySentinels<K>::is_valid(key) ? Status::key_not_found
                                                                         : Status::invalid_key));
        }
      }, what);
}

template <class Ref, class K>
void contains(const Ref& r, const K* keys, std::uint64_t n, bool* out, cudaStream_t stream,
              const char* what) {
  launch_group_per_item<Ref::group_size>(n, stream,
      [=] __device__(const typename Ref::group_type& g, std::uint64_t i) {
        const bool found = r.contains(g, keys[i]);
        if (g.thread_rank() == 0) out[i] = found;
      }, what);
}

// status_out[i]: ok, or key_not_found when keys[i] was absent.
template <class Ref, class K>
void erase(const Ref& r, const K* keys, std::uint64_t n, cudaStream_t stream, Status* status_out,
           const char* what) {
  launch_group_per_item<Ref::group_size>(n, stream,
      [=] __device__(const typename Ref::group_type& g, std::uint64_t i) {
        const bool erased = r.erase(g, keys[i]);
        if (status_out != nullptr && g.thread_rank() == 0) {
          status_out[i] = Status(erased ? 0u : Status::key_not_found);
        }
      }, what);
}

}  // namespace metawarp::tables::bulk
