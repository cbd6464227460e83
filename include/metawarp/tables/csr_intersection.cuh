#pragma once
// HashGraph's intersection probe between two CSR tables built with the same
// vertices and hash (same num_vertices, seed and Hasher): a key of either
// table can only meet its equal in the same vertex, so each vertex's two
// key-sorted lists are merged, reading both tables once and sequentially.
//
//   csr_intersect(a, b, keys_out)   multiset intersection: each common key
//                                   min(count_a, count_b) times, like
//                                   std::set_intersection of the sorted keys;
//                                   ordered by vertex, then key (deterministic)
//   csr_join_size(a, b)             inner-join size: sum of count_a * count_b
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/tables/csr_table.cuh"
#include "metawarp/tables/launch.cuh"
#include "metawarp/tables/scan.cuh"

namespace metawarp::tables {

namespace detail {

template <class TableA, class TableB>
void check_same_vertices(const TableA& a, const TableB& b) {
  if (a.num_vertices() != b.num_vertices() || a.seed() != b.seed()) {
    throw std::invalid_argument(
        "CSR intersection needs tables with the same num_vertices and seed (set "
        "CsrOptions::num_vertices for both)");
  }
}

// Merges the two sorted lists of one vertex; calls on_common(key, count_a,
// count_b) for each key present in both.
template <class K, class F>
__device__ void merge_vertex(const K* a_keys, std::uint64_t a, std::uint64_t a_end,
                             const K* b_keys, std::uint64_t b, std::uint64_t b_end, F&& on_common) {
  while (a < a_end && b < b_end) {
    const K ka = a_keys[a], kb = b_keys[b];
    if (ka < kb) {
      ++a;
    } else if (kb < ka) {
      ++b;
    } else {
      std::uint64_t run_a = 0, run_b = 0;
      while (a < a_end && a_keys[a] == ka) ++a, ++run_a;
      while (b < b_end && b_keys[b] == ka) ++b, ++run_b;
      on_common(ka, run_a, run_b);
    }
  }
}

}  // namespace detail

// Writes the multiset intersection to keys_out (nullptr: count only); returns
// its size (synchronises `stream`).
template <class K, class VA, class VB, class H, int GA, int GB>
std::uint64_t csr_intersect(const CsrTable<K, VA, H, GA>& a, const CsrTable<K, VB, H, GB>& b,
                            K* keys_out, cudaStream_t stream) {
  detail::check_same_vertices(a, b);
  const std::uint64_t vertices = a.num_vertices();
  const std::uint64_t *a_off = a.offsets(), *b_off = b.offsets();
  const K *a_keys = a.keys(), *b_keys = b.keys();
  cuda::device_buffer<std::uint64_t> offsets(vertices + 1);
  std::uint64_t* out_offsets = offsets.data();
  launch_thread_per_item(vertices, stream, [=] __device__(std::uint64_t v, bool valid) {
    if (!valid) return;
    std::uint64_t common = 0;
    detail::merge_vertex(a_keys, a_off[v], a_off[v + 1], b_keys, b_off[v], b_off[v + 1],
                         [&](K, std::uint64_t ca, std::uint64_t cb) { common += ca < cb ? ca : cb; });
    out_offsets[v] = common;
  }, "CSR intersection count");
  const std::uint64_t total = counts_to_offsets(out_offsets, vertices, stream);
  if (keys_out == nullptr || total == 0) return total;
  launch_thread_per_item(vertices, stream, [=] __device__(std::uint64_t v, bool valid) {
    if (!valid) return;
    K* out = keys_out + out_offsets[v];
    detail::merge_vertex(a_keys, a_off[v], a_off[v + 1], b_keys, b_off[v], b_off[v + 1],
                         [&](K key, std::uint64_t ca, std::uint64_t cb) {
                           for (std::uint64_t i = 0; i < (ca < cb ? ca : cb); ++i) *out++ = key;
                         });
  }, "CSR intersection write");
  cuda::check(cudaStreamSynchronize(stream), "CSR intersection");  // `offsets` dies here
  return total;
}

// Number of (a pair, b pair) matches with equal keys (synchronises `stream`).
template <class K, class VA, class VB, class H, int GA, int GB>
std::uint64_t csr_join_size(const CsrTable<K, VA, H, GA>& a, const CsrTable<K, VB, H, GB>& b,
                            cudaStream_t stream) {
  detail::check_same_vertices(a, b);
  const std::uint64_t *a_off = a.offsets(), *b_off = b.offsets();
  const K *a_keys = a.keys(), *b_keys = b.keys();
  cuda::device_buffer<unsigned long long> sum(1);
  sum.fill_bytes(0, stream);
  unsigned long long* total = sum.data();
  launch_thread_per_item(a.num_vertices(), stream, [=] __device__(std::uint64_t v, bool valid) {
    if (!valid) return;
    unsigned long long pairs = 0;
    detail::merge_vertex(a_keys, a_off[v], a_off[v + 1], b_keys, b_off[v], b_off[v + 1],
                         [&](K, std::uint64_t ca, std::uint64_t cb) { pairs += ca * cb; });
    if (pairs != 0) atomicAdd(total, pairs);
  }, "CSR join size");
  unsigned long long result = 0;
  sum.copy_to_host(&result, 1, stream);
  cuda::check(cudaStreamSynchronize(stream), "CSR join size");
  return result;
}

}  // namespace metawarp::tables
