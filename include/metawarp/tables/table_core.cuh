#pragma once
// The flat storage policy of the open-addressing tables (single value, multi
// value, counting, set, bucket list): SlotStorage in windows plus the probing
// ref. The host API is container.cuh; the concrete tables add their key semantics.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "metawarp/tables/open_addressing.cuh"
#include "metawarp/tables/probing.hpp"
#include "metawarp/tables/slot_storage.cuh"

namespace metawarp::tables {

struct TableOptions {
  std::uint64_t seed = 0;        // hash seed
  std::uint32_t max_probes = 0;  // windows examined per operation; 0 = all (never gives up early)
};

// The flat storage policy: SlotStorage sized to whole windows of GroupSize
// slots, and the probing ref over them (open_addressing.cuh).
template <class Layout, class Probing, class Hasher, int GroupSize>
class TableCore : public SlotStorage<Layout> {
 public:
  using ref_type = OpenAddressingRef<Layout, Probing, Hasher, GroupSize>;

  TableCore(std::uint64_t min_capacity, TableOptions options, cudaStream_t stream)
      : SlotStorage<Layout>(std::uint64_t(checked_windows(min_capacity)) * GroupSize, stream) {
    const auto num_windows = std::uint32_t(this->capacity() / GroupSize);
    ref_.layout = this->layout();
    ref_.num_windows = num_windows;
    ref_.max_probes = (options.max_probes == 0 || options.max_probes > num_windows)
                          ? num_windows
                          : options.max_probes;
    ref_.hasher = Hasher(options.seed);
    ref_.table_status = this->status_word();
  }

  TableCore(TableCore&&) noexcept = default;
  TableCore& operator=(TableCore&&) noexcept = default;

  const ref_type& ref() const { return ref_; }

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

  ref_type ref_{};
};

}  // namespace metawarp::tables
