#pragma once
// Putting the shards' answers back in input order (the merge phase of the
// distributed table's queries). Distributed mode: answer j belongs to input
// source[j] (the split's source positions). Independent mode (source null):
// every shard answered every input, shard d's answers after shard d-1's.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/pooled_buffer.hpp"
#include "metawarp/tables/launch.cuh"
#include "metawarp/tables/scan.cuh"
#include "metawarp/tables/status.hpp"

namespace metawarp::tables::distributed {

namespace detail {

// Answers j (shard 0's buffers) -> input order. Distributed (source != null):
// answer j belongs to input source[j]. Independent (source == null): answer
// d * n + i is shard d's for input i, the first shard having the key wins.
template <class V>
void merge_found(const std::uint64_t* source, unsigned shards, std::uint64_t n, const V* answers,
                 const Status* status, V* values_out, Status* status_out, cudaStream_t st) {
  if (source != nullptr) {
    launch_thread_per_item(n, st, [=] __device__(std::uint64_t j, bool valid) {
      if (!valid) return;
      const std::uint64_t i = source[j];
      values_out[i] = answers[j];
      if (status_out != nullptr) status_out[i] = status[j];
    }, "distributed find merge");
    return;
  }
  launch_thread_per_item(n, st, [=] __device__(std::uint64_t i, bool valid) {
    if (!valid) return;
    unsigned d = 0;
    while (d + 1 < shards && !status[d * n + i].ok()) ++d;
    values_out[i] = answers[d * n + i];
    if (status_out != nullptr) status_out[i] = status[d * n + i];
  }, "independent find merge");
}

inline void merge_contains(const std::uint64_t* source, unsigned shards, std::uint64_t n,
                           const bool* answers, bool* out, cudaStream_t st) {
  if (source != nullptr) {
    launch_thread_per_item(n, st, [=] __device__(std::uint64_t j, bool valid) {
      if (valid) out[source[j]] = answers[j];
    }, "distributed contains merge");
    return;
  }
  launch_thread_per_item(n, st, [=] __device__(std::uint64_t i, bool valid) {
    if (!valid) return;
    bool any = false;
    for (unsigned d = 0; d < shards; ++d) any = any || answers[d * n + i];
    out[i] = any;
  }, "independent contains merge");
}

// Per-answer counts and the shards' values in answer order -> offsets and
// values in input order (independent: a key's values shard by shard), in two
// enqueued steps so that the merges of several askers (retrieve_from_shards)
// run side by side on their GPUs: counts() places each key's total and scans
// them into offsets_out; once the stream has passed it, total() is the number
// of values and values() places them. Everything on the current device and
// `st` (its scratch too, from the device's pool); the merge must live until
// the stream has passed values(). `totals`:
// two page-locked words of the caller's (allocating them is slow), so that the
// scans' totals come back without blocking the host.
template <class V>
class RetrieveMerge {
 public:
  explicit RetrieveMerge(std::uint64_t* totals) : totals_(totals) {}

  void counts(const std::uint64_t* source, unsigned shards, std::uint64_t n, std::uint64_t slots,
              const std::uint64_t* counts, std::uint64_t* offsets_out, cudaStream_t st) {
    source_ = source, n_ = n, slots_ = slots, counts_ = counts, offsets_ = offsets_out;
    const unsigned copies = source != nullptr ? 1 : shards;
    // Per-key totals in input order, scanned into the output offsets.
    launch_thread_per_item(n, st, [=] __device__(std::uint64_t j, bool valid) {
      if (!valid) return;
      if (source != nullptr) {
        offsets_out[source[j]] = counts[j];
        return;
      }
      std::uint64_t sum = 0;
      for (unsigned d = 0; d < copies; ++d) sum += counts[d * n + j];
      offsets_out[j] = sum;
    }, "retrieve merge counts");
    counts_to_offsets_async(offsets_out, n, st, output_scan_, totals_);
    // Where answer j's values start among the answers: the scan of the counts.
    answer_offsets_ = cuda::make_pooled<std::uint64_t>(slots + 1, st);
    if (slots > 0) {
      cuda::check(cudaMemcpyAsync(answer_offsets_.data(), counts, slots * sizeof(std::uint64_t),
                                  cudaMemcpyDeviceToDevice, st),
                  "copying retrieved counts");
    }
    counts_to_offsets_async(answer_offsets_.data(), slots, st, answer_scan_, totals_ + 1);
  }

  std::uint64_t total() const { return totals_[0]; }

  void values(const V* answer_values, cuda::device_buffer<V>& values_out, cudaStream_t st) {
    if (values_out.size() < total()) values_out = cuda::device_buffer<V>(total());
    V* out = values_out.data();
    const std::uint64_t* from = answer_offsets_.data();
    const std::uint64_t* source = source_;
    const std::uint64_t n = n_;
    const std::uint64_t* counts = counts_;
    const std::uint64_t* offsets = offsets_;
    launch_group_per_item<8>(slots_, st, [=] __device__(const cg::thread_block_tile<8>& g,
                                                        std::uint64_t j) {
      const std::uint64_t i = source != nullptr ? source[j] : j % n;
      std::uint64_t at = offsets[i];
      for (std::uint64_t d = 0; source == nullptr && d < j / n; ++d) at += counts[d * n + i];
      const std::uint64_t c = counts[j];
      for (std::uint64_t k = g.thread_rank(); k < c; k += 8) out[at + k] = answer_values[from[j] + k];
    }, "retrieve merge values");
  }

 private:
  const std::uint64_t* source_ = nullptr;
  std::uint64_t n_ = 0, slots_ = 0;
  const std::uint64_t* counts_ = nullptr;
  std::uint64_t* offsets_ = nullptr;
  cuda::pooled_buffer<std::uint64_t> answer_offsets_;  // scratch from the pool, in st's order
  cuda::pooled_buffer<unsigned char> output_scan_, answer_scan_;
  std::uint64_t* totals_;  // the output's (total()) and the answers' (not needed)
};

// One merge, waited for; returns the total number of values. `totals`: as
// RetrieveMerge's.
template <class V>
std::uint64_t merge_retrieved(const std::uint64_t* source, unsigned shards, std::uint64_t n,
                              std::uint64_t slots, const std::uint64_t* counts,
                              const V* answer_values, std::uint64_t* offsets_out,
                              cuda::device_buffer<V>& values_out, std::uint64_t* totals,
                              cudaStream_t st) {
  RetrieveMerge<V> merge(totals);
  merge.counts(source, shards, n, slots, counts, offsets_out, st);
  cuda::check(cudaStreamSynchronize(st), "waiting for the retrieve merge's counts");
  merge.values(answer_values, values_out, st);
  cuda::check(cudaStreamSynchronize(st), "waiting for the retrieve merge");
  return merge.total();
}

}  // namespace detail

}  // namespace metawarp::tables::distributed
