#pragma once
// The one slot-storage core under every open-addressing table: `slots` slots
// in `Layout`, the accumulated status word, and the slot-parallel scans
// (clear, count_occupied, retrieve_all, for_each_occupied). How the slots are
// grouped is the storage policy above it: TableCore (flat windows walked by a
// probing sequence) and BucketedStorage (buckets addressed by three hashes)
// size the slots and add their ref; the scans here never look at the grouping.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/tables/launch.cuh"
#include "metawarp/tables/sentinels.hpp"
#include "metawarp/tables/status.hpp"
#include "metawarp/tables/status_word.hpp"

namespace metawarp::tables {

template <class Layout>
class SlotStorage {
 public:
  using key_type = typename Layout::key_type;
  using value_type = typename Layout::value_type;
  using sentinels = KeySentinels<key_type>;

  SlotStorage(std::uint64_t slots, cudaStream_t stream)
      : slots_(slots), storage_(slots), cursor_(1) {
    clear(stream);
  }

  SlotStorage(SlotStorage&&) noexcept = default;
  SlotStorage& operator=(SlotStorage&&) noexcept = default;

  Layout layout() const { return storage_.view(); }
  std::uint64_t capacity() const { return slots_; }
  std::uint64_t bytes() const { return storage_.bytes(); }
  Status::bits_type* status_word() const { return status_.data(); }

  // Empties every slot and the status (asynchronous).
  void clear(cudaStream_t stream) {
    const Layout l = layout();
    launch_thread_per_item(capacity(), stream, [=] __device__(std::uint64_t i, bool valid) {
      if (valid) l.init_slot(i);
    }, "table clear");
    status_.clear(stream);
  }

  // Status accumulated by all operations since construction / pop_status.
  Status peek_status(cudaStream_t stream) const { return status_.peek(stream); }
  Status pop_status(cudaStream_t stream) { return status_.pop(stream); }

  // Calls f(slot, key) for every occupied slot, one thread per slot.
  template <class F>
  void for_each_occupied(F f, cudaStream_t stream) const {
    const Layout l = layout();
    launch_thread_per_item(capacity(), stream, [=] __device__(std::uint64_t i, bool valid) {
      if (!valid) return;
      const key_type k = l.load_key(i);
      if (sentinels::is_valid(k)) f(i, k);
    }, "table for_each");
  }

  // Number of occupied slots (synchronises `stream`).
  std::uint64_t count_occupied(cudaStream_t stream) const {
    reset_cursor(stream);
    const Layout l = layout();
    std::uint64_t* cursor = cursor_.data();
    launch_thread_per_item(capacity(), stream, [=] __device__(std::uint64_t i, bool valid) {
      warp_reserve(cursor, valid && sentinels::is_valid(l.load_key(i)));
    }, "table size");
    return read_cursor(stream);
  }

  // Writes every occupied (key, value) to the outputs (capacity >= count_occupied;
  // either may be null), in unspecified order; returns how many (synchronises `stream`).
  std::uint64_t retrieve_all(key_type* keys_out, value_type* values_out, cudaStream_t stream) const {
    reset_cursor(stream);
    const Layout l = layout();
    std::uint64_t* cursor = cursor_.data();
    launch_thread_per_item(capacity(), stream, [=] __device__(std::uint64_t i, bool valid) {
      const key_type k = valid ? l.load_key(i) : sentinels::empty;
      const bool take = sentinels::is_valid(k);
      const std::uint64_t at = warp_reserve(cursor, take);
      if (take) {
        if (keys_out != nullptr) keys_out[at] = k;
        if (values_out != nullptr) values_out[at] = l.load_value(i);
      }
    }, "table retrieve_all");
    return read_cursor(stream);
  }

  // The scratch counter of the scans, for a table's own scans (bucket list).
  void reset_cursor(cudaStream_t stream) const { cursor_.fill_bytes(0, stream); }
  std::uint64_t* cursor() const { return cursor_.data(); }
  std::uint64_t read_cursor(cudaStream_t stream) const {
    std::uint64_t value = 0;
    cursor_.copy_to_host(&value, 1, stream);
    cuda::check(cudaStreamSynchronize(stream), "reading a table counter");
    return value;
  }

 private:
  std::uint64_t slots_;
  typename Layout::Storage storage_;
  StatusWord status_;
  mutable cuda::device_buffer<std::uint64_t> cursor_;  // scratch counter for scans
};

}  // namespace metawarp::tables
