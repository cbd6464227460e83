#pragma once
// Where the time of a distributed operation goes: partitioning the batch by
// owner, allocating the exchange's receive buffers, the exchange between
// shards, the shards' table work, and putting answers back in input order.
// Each phase ends with every shard's stream synchronised (the exchange needs
// sizes on the host anyway), so a phase is timed with two CUDA events on
// shard 0's stream around it.
#include <cuda_runtime_api.h>

#include <memory>

#include "metawarp/cuda/event.hpp"
#include "metawarp/tables/distributed/shard_set.cuh"

namespace metawarp::tables::distributed {

struct PhaseTimes {
  double partition_ms = 0;  // multisplit (or the chunking of independent mode)
  // Allocating the buffers the exchange fills (from the devices' memory
  // pools: next to nothing once warmed), apart from the exchange so that
  // exchange_ms compares with the links' bandwidth (issue 28).
  double allocate_ms = 0;
  double exchange_ms = 0;   // sizes and data, both directions
  double table_ms = 0;      // the shards' own table operations
  double merge_ms = 0;      // answers back into input order
  double total_ms() const {
    return partition_ms + allocate_ms + exchange_ms + table_ms + merge_ms;
  }
};

class PhaseClock {
 public:
  explicit PhaseClock(const ShardSet& shards) : shards_(shards) {
    DeviceGuard on(shards.device(0));
    start_ = std::make_unique<cuda::event>();
    stop_ = std::make_unique<cuda::event>();
  }
  // Call with every shard idle; returns nothing, the phase runs after it.
  void begin() {
    DeviceGuard on(shards_.device(0));
    start_->record(shards_.stream(0));
  }
  // Waits for every shard; returns the phase's milliseconds.
  double end() {
    shards_.synchronize_all();
    DeviceGuard on(shards_.device(0));
    stop_->record(shards_.stream(0));
    stop_->synchronize();
    return double(stop_->elapsed_ms_since(*start_));
  }

 private:
  const ShardSet& shards_;
  std::unique_ptr<cuda::event> start_, stop_;  // created on shard 0's device
};

}  // namespace metawarp::tables::distributed
