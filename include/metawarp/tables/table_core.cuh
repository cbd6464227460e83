#pragma once
// Owning part shared by the open-addressing tables: slot storage, the
// accumulated status word, sizing and the slot-parallel scans (size,
// retrieve_all, for_each). The concrete tables add their key semantics.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/tables/launch.cuh"
#include "metawarp/tables/open_addressing.cuh"
#include "metawarp/tables/probing.hpp"
#include "metawarp/tables/status_word.hpp"

namespace metawarp::tables {

struct TableOptions {
  std::uint64_t seed = 0;        // hash seed
  std::uint32_t max_probes = 0;  // windows examined per operation; 0 = all (never gives up early)
};

template <class Layout, class Probing, class Hasher, int GroupSize>
class TableCore {
 public:
  using ref_type = OpenAddressingRef<Layout, Probing, Hasher, GroupSize>;
  using key_type = typename Layout::key_type;
  using value_type = typename Layout::value_type;
  using sentinels = KeySentinels<key_type>;

  TableCore(std::uint64_t min_capacity, TableOptions options, cudaStream_t stream)
      : num_windows_(checked_windows(min_capacity)),
        storage_(std::uint64_t(num_windows_) * GroupSize),
        cursor_(1) {
    ref_.layout = storage_.view();
    ref_.num_windows = num_windows_;
    ref_.max_probes = (options.max_probes == 0 || options.max_probes > num_windows_)
                          ? num_windows_
                          : options.max_probes;
    ref_.hasher = Hasher(options.seed);
    ref_.table_status = status_.data();
    clear(stream);
  }

  TableCore(TableCore&&) noexcept = default;
  TableCore& operator=(TableCore&&) noexcept = default;

  const ref_type& ref() const { return ref_; }
  std::uint64_t capacity() const { return ref_.capacity(); }
  std::uint64_t bytes() const { return storage_.bytes(); }

  // Empties every slot and the status (asynchronous).
  void clear(cudaStream_t stream) {
    const Layout layout = ref_.layout;
    launch_thread_per_item(capacity(), stream, [=] __device__(std::uint64_t i, bool valid) {
      if (valid) layout.init_slot(i);
    }, "table clear");
    status_.clear(stream);
  }

  // Status accumulated by all operations since construction / pop_status.
  Status peek_status(cudaStream_t stream) const { return status_.peek(stream); }
  Status pop_status(cudaStream_t stream) { return status_.pop(stream); }

  // Calls f(slot, key) for every occupied slot, one thread per slot.
  template <class F>
  void for_each_occupied(F f, cudaStream_t stream) const {
    const Layout layout = ref_.layout;
    launch_thread_per_item(capacity(), stream, [=] __device__(std::uint64_t i, bool valid) {
      if (!valid) return;
      const key_type k = layout.load_key(i);
      if (sentinels::is_valid(k)) f(i, k);
    }, "table for_each");
  }

  // Number of occupied slots (synchronises `stream`).
  std::uint64_t count_occupied(cudaStream_t stream) const {
    reset_cursor(stream);
    const Layout layout = ref_.layout;
    std::uint64_t* cursor = cursor_.data();
    launch_thread_per_item(capacity(), stream, [=] __device__(std::uint64_t i, bool valid) {
      warp_reserve(cursor, valid && sentinels::is_valid(layout.load_key(i)));
    }, "table size");
    return read_cursor(stream);
  }

  // Writes every occupied (key, value) to the outputs (capacity >= count_occupied),
  // in unspecified order; returns how many (synchronises `stream`).
  std::uint64_t retrieve_all(key_type* keys_out, value_type* values_out, cudaStream_t stream) const {
    reset_cursor(stream);
    const Layout layout = ref_.layout;
    std::uint64_t* cursor = cursor_.data();
    launch_thread_per_item(capacity(), stream, [=] __device__(std::uint64_t i, bool valid) {
      const key_type k = valid ? layout.load_key(i) : sentinels::empty;
      const bool take = sentinels::is_valid(k);
      const std::uint64_t at = warp_reserve(cursor, take);
      if (take) {
        if (keys_out != nullptr) keys_out[at] = k;
        if (values_out != nullptr) values_out[at] = layout.load_value(i);
      }
    }, "table retrieve_all");
    return read_cursor(stream);
  }

  void reset_cursor(cudaStream_t stream) const { cursor_.fill_bytes(0, stream); }
  std::uint64_t* cursor() const { return cursor_.data(); }
  std::uint64_t read_cursor(cudaStream_t stream) const {
    std::uint64_t value = 0;
    cursor_.copy_to_host(&value, 1, stream);
    cuda::check(cudaStreamSynchronize(stream), "reading a table counter");
    return value;
  }

 private:
  static std::uint32_t checked_windows(std::uint64_t min_capacity) {
    const std::uint64_t windows = windows_for_capacity(min_capacity, GroupSize);
    if (windows >= (std::uint64_t(1) << 32)) {
      throw std::invalid_argument("table capacity " + std::to_string(min_capacity) +
                                  " exceeds 2^32 windows of " + std::to_string(GroupSize) +
                                  " slots");
    }
    return std::uint32_t(windows);
  }

  std::uint32_t num_windows_;
  typename Layout::Storage storage_;
  StatusWord status_;
  mutable cuda::device_buffer<std::uint64_t> cursor_;  // scratch counter for scans
  ref_type ref_{};
};

// The members every open-addressing container answers the same way from its
// TableCore; a container derives from this and adds its Ref and key semantics.
template <class Core>
class CoreContainer {
 public:
  std::uint64_t capacity() const { return core_.capacity(); }
  std::uint64_t bytes() const { return core_.bytes(); }
  // Occupied slots: keys (single value, set, counting) or pairs (multi value).
  // Synchronises `stream`.
  std::uint64_t size(cudaStream_t stream) const { return core_.count_occupied(stream); }
  double load_factor(cudaStream_t stream) const {
    return double(size(stream)) / double(capacity());
  }
  void clear(cudaStream_t stream) { core_.clear(stream); }
  Status peek_status(cudaStream_t stream) const { return core_.peek_status(stream); }
  Status pop_status(cudaStream_t stream) { return core_.pop_status(stream); }

 protected:
  CoreContainer(std::uint64_t min_capacity, TableOptions options, cudaStream_t stream)
      : core_(min_capacity, options, stream) {}
  Core core_;
};

}  // namespace metawarp::tables
