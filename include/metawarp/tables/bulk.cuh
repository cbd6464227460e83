#pragma once
// The host bulk operations, written once over a table's device Ref: each runs
// one cooperative group per input item (launch_group_per_item) and calls the
// Ref's member for that item. A table's insert/find/contains/count/erase/
// retrieve forward here, so what a table header adds is its Ref (the key
// semantics) and its storage. Inputs and outputs are device-resident; every
// call is asynchronous on the given stream.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/tables/launch.cuh"
#include "metawarp/tables/scan.cuh"
#include "metawarp/tables/sentinels.hpp"
#include "metawarp/tables/status.hpp"

namespace metawarp::tables::bulk {

template <class Ref>
using group_of = cg::thread_block_tile<Ref::group_size>;

// How a Ref's bulk operations launch: one group of group_size threads per
// item, unless the Ref sets its own lookup and insert tiles and insert grid
// (find_group_size, insert_group_size, insert_grid: the bucketed cuckoo table).
template <class Ref>
struct BulkLaunch {
  static constexpr int lookup_group_size = Ref::group_size;
  static constexpr int insert_group_size = Ref::group_size;
  static constexpr GridShape insert_grid = GridShape::per_item;
};
template <class Ref>
  requires requires { Ref::find_group_size; }
struct BulkLaunch<Ref> {
  static constexpr int lookup_group_size = Ref::find_group_size;
  static constexpr int insert_group_size = Ref::insert_group_size;
  static constexpr GridShape insert_grid = Ref::insert_grid;
};
template <class Ref>
using lookup_group_of = cg::thread_block_tile<BulkLaunch<Ref>::lookup_group_size>;
template <class Ref>
using insert_group_of = cg::thread_block_tile<BulkLaunch<Ref>::insert_group_size>;

// r.insert(keys[i], values[i]); status_out (optional, n entries) gets each status.
template <class Ref, class K, class V>
void insert(const Ref& r, const K* keys, const V* values, std::uint64_t n, cudaStream_t stream,
            Status* status_out, const char* what) {
  launch_group_per_item<BulkLaunch<Ref>::insert_group_size>(
      n, stream, [=] __device__(const insert_group_of<Ref>& g, std::uint64_t i) {
    const Status s = r.insert(g, keys[i], values[i]);
    if (status_out != nullptr && g.thread_rank() == 0) status_out[i] = s;
  }, what, BulkLaunch<Ref>::insert_grid);
}

// r.insert(keys[i]) for tables of keys only (sets, counters).
template <class Ref, class K>
void insert_keys(const Ref& r, const K* keys, std::uint64_t n, cudaStream_t stream,
                 Status* status_out, const char* what) {
  launch_group_per_item<Ref::group_size>(n, stream,
                                         [=] __device__(const group_of<Ref>& g, std::uint64_t i) {
    const Status s = r.insert(g, keys[i]);
    if (status_out != nullptr && g.thread_rank() == 0) status_out[i] = s;
  }, what);
}

// values_out[i] = the value of keys[i], or not_found_value with the status
// key_not_found (invalid_key for a sentinel key).
template <class Ref, class K, class V>
void find(const Ref& r, const K* keys, std::uint64_t n, V* values_out, V not_found_value,
          cudaStream_t stream, Status* status_out, const char* what) {
  launch_group_per_item<BulkLaunch<Ref>::lookup_group_size>(
      n, stream, [=] __device__(const lookup_group_of<Ref>& g, std::uint64_t i) {
    V value = not_found_value;
    const K key = keys[i];
    const bool found = r.find(g, key, value);
    if (g.thread_rank() == 0) {
      values_out[i] = value;
      if (status_out != nullptr) {
        status_out[i] = Status(found ? 0u
                                     : (KeySentinels<K>::is_valid(key) ? Status::key_not_found
                                                                       : Status::invalid_key));
      }
    }
  }, what);
}

template <class Ref, class K>
void contains(const Ref& r, const K* keys, std::uint64_t n, bool* out, cudaStream_t stream,
              const char* what) {
  launch_group_per_item<BulkLaunch<Ref>::lookup_group_size>(
      n, stream, [=] __device__(const lookup_group_of<Ref>& g, std::uint64_t i) {
    const bool found = r.contains(g, keys[i]);
    if (g.thread_rank() == 0) out[i] = found;
  }, what);
}

// counts_out[i] = r.count(keys[i]): values of a key, occurrences of a counted key.
template <class Ref, class K, class C>
void count(const Ref& r, const K* keys, std::uint64_t n, C* counts_out, cudaStream_t stream,
           const char* what) {
  launch_group_per_item<Ref::group_size>(n, stream,
                                         [=] __device__(const group_of<Ref>& g, std::uint64_t i) {
    const C c = C(r.count(g, keys[i]));
    if (g.thread_rank() == 0) counts_out[i] = c;
  }, what);
}

// r.erase(keys[i]); status_out gets key_not_found where nothing was erased.
template <class Ref, class K>
void erase(const Ref& r, const K* keys, std::uint64_t n, cudaStream_t stream, Status* status_out,
           const char* what) {
  launch_group_per_item<Ref::group_size>(n, stream,
                                         [=] __device__(const group_of<Ref>& g, std::uint64_t i) {
    const bool erased = r.erase(g, keys[i]) != 0;
    if (status_out != nullptr && g.thread_rank() == 0) {
      status_out[i] = Status(erased ? 0u : Status::key_not_found);
    }
  }, what);
}

// Multi-value retrieval, step 1 (dry run): offsets (n + 1 entries) receive where
// each key's values go; returns the total (synchronises `stream`).
template <class Ref, class K>
std::uint64_t retrieve_offsets(const Ref& r, const K* keys, std::uint64_t n,
                               std::uint64_t* offsets, cudaStream_t stream, const char* what) {
  count(r, keys, n, offsets, stream, what);
  return counts_to_offsets(offsets, n, stream);
}

// Step 2: the values of keys[i] to values_out[offsets[i] .. offsets[i+1]), in
// the Ref's rank order. A table that grew since the dry run never overruns.
template <class Ref, class K, class V>
void retrieve(const Ref& r, const K* keys, std::uint64_t n, const std::uint64_t* offsets,
              V* values_out, cudaStream_t stream, const char* what) {
  launch_group_per_item<Ref::group_size>(n, stream,
                                         [=] __device__(const group_of<Ref>& g, std::uint64_t i) {
    V* out = values_out + offsets[i];
    const std::uint64_t room = offsets[i + 1] - offsets[i];
    r.for_each_value(g, keys[i], [&](V value, std::uint64_t rank) {
      if (rank < room) out[rank] = value;
    });
  }, what);
}

}  // namespace metawarp::tables::bulk
