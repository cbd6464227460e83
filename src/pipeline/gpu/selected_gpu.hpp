#pragma once
// The GPU an executor works on, selected before any of its streams or
// buffers is made (the CUDA device is a per-thread setting).
#include <string>

namespace metawarp::pipeline::gpu {

class SelectedGpu {
 public:
  // Throws std::runtime_error "GPU <what> requested, but <why>; use --device
  // cpu" when no GPU can be used, std::invalid_argument for a device number
  // that does not exist.
  SelectedGpu(int device, const std::string& what);
  // Selects the device again, on the calling thread.
  void select() const;

 private:
  int device_;
};

}  // namespace metawarp::pipeline::gpu
