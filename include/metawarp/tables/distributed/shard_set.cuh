#pragma once
// The devices a distributed table lives on: shard s runs on devices[s] with
// its own stream. A device may appear several times ({0, 0, 0} = three
// shards on GPU 0): the partition and exchange logic is then exactly the one
// that several GPUs run, which is how it is tested on one GPU.
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "metawarp/cuda/error.hpp"
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
      streams_.push_back(std::make_unique<cuda::stream>());
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

  void synchronize_all() const {
    for (unsigned s = 0; s < size(); ++s) {
      DeviceGuard on(devices_[s]);
      cuda::check(cudaStreamSynchronize(stream(s)), "waiting for a shard's stream");
    }
  }

 private:
  std::vector<int> devices_;
  std::vector<std::unique_ptr<cuda::stream>> streams_;  // stable addresses; stream is move-only
};

}  // namespace metawarp::tables::distributed
