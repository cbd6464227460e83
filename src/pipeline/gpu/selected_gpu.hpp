#pragma once
// The GPU an executor works on, selected before any of its streams or
// buffers is made (the CUDA device is a per-thread setting).
#include <string>
#include <vector>

#include "pipeline/shard_layout.hpp"

namespace metawarp::pipeline::gpu {

class SelectedGpu {
 public:
  // Throws std::runtime_error "GPU <what> requested, but <why>; use --device
  // cpu" when no GPU can be used, std::invalid_argument for a device number
  // that does not exist.
  SelectedGpu(int device, const std::string& what);
  // Selects the device again, on the calling thread.
  void select() const;
  int device() const { return device_; }

 private:
  int device_;
};

// Every GPU of the layout opened, the first selected (it stays selected).
// Throws std::runtime_error when no GPU can be used, std::invalid_argument
// naming a device that does not exist (or an empty layout).
std::vector<SelectedGpu> open_gpus(const ShardLayout& layout);

}  // namespace metawarp::pipeline::gpu
