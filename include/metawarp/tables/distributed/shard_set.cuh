#pragma once
// The devices a distributed table lives on: shard s runs on devices[s] with
// its own streams. A device may appear several times ({0, 0, 0} = three
// shards on GPU 0): the partition and exchange logic is then exactly the one
// that several GPUs run, which is how it is tested on one GPU.
//
// Three streams per shard, so that the exchange between GPUs overlaps what
// does not depend on it:
//   stream(s)        the shard's operations and the exchange's transfers
//                    (NCCL kernels, peer copies); the device's highest
//                    priority, so an exchange kernel enqueued beside a table
//                    kernel of millions of blocks is scheduled first instead
//                    of after them;
//   copy_stream(s)   the exchange's copy of a shard's segment to itself,
//                    beside its transfers between GPUs (fork_copy/join_copy);
//   table_stream(s)  table work overlapping an exchange (an insert's own
//                    segment while the others travel).
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/cuda/memory_pool.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/tables/distributed/owner.hpp"

namespace metawarp::tables::distributed {

// Makes `device` current for its lifetime and restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    cuda::check(cudaGetDevice(&previous_), "reading the current device");
    if (device != previous_) cuda::check(cudaSetDevice(device), "selecting a shard's device");
  }
  ~DeviceGuard() { cudaSetDevice(previous_); }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

class ShardSet {
 public:
  explicit ShardSet(std::vector<int> devices) : devices_(std::move(devices)) {
    check_shard_count(unsigned(devices_.size()));
    int count = 0;
    cuda::check(cudaGetDeviceCount(&count), "counting CUDA devices");
    for (int d : devices_) {
      if (d < 0 || d >= count) {
        throw std::invalid_argument("shard device " + std::to_string(d) + " does not exist (" +
                                    std::to_string(count) + " CUDA devices visible)");
      }
    }
    for (std::size_t s = 0; s < devices_.size(); ++s) {
      DeviceGuard on(devices_[s]);
      streams_.push_back(std::make_unique<cuda::stream>(cuda::greatest_stream_priority()));
      copy_streams_.push_back(std::make_unique<cuda::stream>());
      table_streams_.push_back(std::make_unique<cuda::stream>());
      forks_.push_back(std::make_unique<cuda::event>(cudaEventDisableTiming));
      joins_.push_back(std::make_unique<cuda::event>(cudaEventDisableTiming));
    }
    // The operations' temporaries come from the devices' memory pools, whose
    // memory another GPU may use only once shared: peer copies and NCCL
    // (which writes into a peer's buffers when its ranks share a process)
    // move data straight between the shards' pool buffers.
    for (int a : devices_) {
      for (int b : devices_) {
        if (a != b) cuda::share_device_pool(a, b);
      }
    }
  }

  unsigned size() const { return unsigned(devices_.size()); }
  int device(unsigned shard) const { return devices_[shard]; }
  const std::vector<int>& devices() const { return devices_; }
  cudaStream_t stream(unsigned shard) const { return streams_[shard]->get(); }
  cudaStream_t copy_stream(unsigned shard) const { return copy_streams_[shard]->get(); }
  cudaStream_t table_stream(unsigned shard) const { return table_streams_[shard]->get(); }

  // copy_stream(s)'s next work follows what stream(s) holds now.
  void fork_copy(unsigned s) const {
    DeviceGuard on(devices_[s]);
    forks_[s]->record(stream(s));
    cuda::check(cudaStreamWaitEvent(copy_stream(s), forks_[s]->get(), 0), "forking a copy stream");
  }
  // stream(s)'s next work follows what copy_stream(s) holds now.
  void join_copy(unsigned s) const {
    DeviceGuard on(devices_[s]);
    joins_[s]->record(copy_stream(s));
    cuda::check(cudaStreamWaitEvent(stream(s), joins_[s]->get(), 0), "joining a copy stream");
  }

  // True when no two shards share a device (what NCCL needs: one rank per GPU).
  bool distinct_devices() const {
    for (std::size_t a = 0; a < devices_.size(); ++a) {
      for (std::size_t b = a + 1; b < devices_.size(); ++b) {
        if (devices_[a] == devices_[b]) return false;
      }
    }
    return true;
  }
  bool single_device() const {
    for (int d : devices_) if (d != devices_[0]) return false;
    return true;
  }

  // Waits for every stream of every shard.
  void synchronize_all() const {
    synchronize_streams();
    for (unsigned s = 0; s < size(); ++s) {
      DeviceGuard on(devices_[s]);
      cuda::check(cudaStreamSynchronize(copy_stream(s)), "waiting for a shard's copy stream");
      cuda::check(cudaStreamSynchronize(table_stream(s)), "waiting for a shard's table stream");
    }
  }
  // Waits for stream(s) of every shard only (an exchange: its copies are
  // joined into stream(s); table work beside it goes on).
  void synchronize_streams() const {
    for (unsigned s = 0; s < size(); ++s) {
      DeviceGuard on(devices_[s]);
      cuda::check(cudaStreamSynchronize(stream(s)), "waiting for a shard's stream");
    }
  }
  // Waits for every table stream (noexcept: for destructors).
  void synchronize_tables_noexcept() const noexcept {
    for (unsigned s = 0; s < size(); ++s) {
      int previous = 0;
      cudaGetDevice(&previous);
      cudaSetDevice(devices_[s]);
      cudaStreamSynchronize(table_stream(s));
      cudaSetDevice(previous);
    }
  }

 private:
  std::vector<int> devices_;
  // unique_ptr: stable addresses; streams and events are move-only.
  std::vector<std::unique_ptr<cuda::stream>> streams_, copy_streams_, table_streams_;
  std::vector<std::unique_ptr<cuda::event>> forks_, joins_;
};

}  // namespace metawarp::tables::distributed
