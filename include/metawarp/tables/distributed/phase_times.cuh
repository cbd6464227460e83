#pragma once
// Where the time of a distributed operation goes: partitioning the batch by
// owner, allocating the exchange's receive buffers, the exchange between
// shards, the shards' table work, and putting answers back in input order.
// Each phase ends with the shards' streams synchronised (the exchange needs
// sizes on the host anyway), so a phase is timed with two CUDA events on
// shard 0's stream around it, and the phases add up to the operation's time.
// Where table work overlaps the exchange (an insert inserts each shard's own
// segment while the others travel), the exchange phase ends when the last
// transfer has arrived and the table phase is what the tables still need
// after it. Each shard's own table work is also timed with events on its
// stream (ShardTimer): shard_table_ms, to see which GPU is slow.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

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
  // Each shard's table kernels, summed (events on the stream they ran on;
  // empty where an operation does not time them). An insert's include its
  // own segment's, which ran beside the exchange; a retrieval's are about
  // table_ms when the shards run side by side at full speed.
  std::vector<double> shard_table_ms;
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
  // Waits for every stream of every shard; returns the phase's milliseconds.
  double end() {
    shards_.synchronize_all();
    return stop();
  }
  // Waits for the shards' streams only (the exchange), not for table work
  // running beside it on the table streams.
  double end_of_exchange() {
    shards_.synchronize_streams();
    return stop();
  }

 private:
  double stop() {
    DeviceGuard on(shards_.device(0));
    stop_->record(shards_.stream(0));
    stop_->synchronize();
    return double(stop_->elapsed_ms_since(*start_));
  }

  const ShardSet& shards_;
  std::unique_ptr<cuda::event> start_, stop_;  // created on shard 0's device
};

// Times pieces of every shard's table work with events on the stream it runs
// on: begin(s, stream) / end(s, stream) around each piece (at most `pieces`
// per operation), ms() once the streams are waited for.
class ShardTimer {
 public:
  static constexpr unsigned pieces = 2;

  explicit ShardTimer(const ShardSet& shards) : shards_(shards), used_(shards.size(), 0) {
    for (unsigned s = 0; s < shards.size(); ++s) {
      DeviceGuard on(shards.device(s));
      for (unsigned e = 0; e < 2 * pieces; ++e) events_.push_back(std::make_unique<cuda::event>());
    }
  }
  // A new operation: no piece timed yet.
  void reset() { std::fill(used_.begin(), used_.end(), 0u); }
  void begin(unsigned s, cudaStream_t stream) { record(s, 2 * used_[s], stream); }
  void end(unsigned s, cudaStream_t stream) {
    record(s, 2 * used_[s] + 1, stream);
    ++used_[s];
  }
  // Each shard's pieces summed (after the streams were waited for).
  std::vector<double> ms() const {
    std::vector<double> total(shards_.size(), 0.0);
    for (unsigned s = 0; s < shards_.size(); ++s) {
      for (unsigned p = 0; p < used_[s]; ++p) {
        total[s] += double(event(s, 2 * p + 1).elapsed_ms_since(event(s, 2 * p)));
      }
    }
    return total;
  }

 private:
  cuda::event& event(unsigned s, unsigned e) const { return *events_[s * 2 * pieces + e]; }
  void record(unsigned s, unsigned e, cudaStream_t stream) {
    if (e >= 2 * pieces) throw std::logic_error("ShardTimer: more pieces than it has events for");
    DeviceGuard on(shards_.device(s));
    event(s, e).record(stream);
  }

  const ShardSet& shards_;
  std::vector<unsigned> used_;
  std::vector<std::unique_ptr<cuda::event>> events_;  // 2 * pieces per shard, on its device
};

}  // namespace metawarp::tables::distributed
