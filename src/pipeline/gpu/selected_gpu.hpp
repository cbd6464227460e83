#pragma once
// The GPU an executor works on, selected before any of its streams or
// buffers is made (the CUDA device is a per-thread setting).
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "metawarp/host/thread_group.hpp"
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

 private:
  int device_;
};

// Every GPU of the layout opened, the first selected (it stays selected).
// Throws std::runtime_error when no GPU can be used, std::invalid_argument
// naming a device that does not exist (or an empty layout).
std::vector<SelectedGpu> open_gpus(const ShardLayout& layout);

// open_gpus on a thread of its own, started at construction, with CUDA's
// primary context made on every GPU of the layout (the driver's start and
// the contexts take 0.1-0.3 s on an H100): the query's load reads the
// database file meanwhile, and the upload waits only at its first CUDA call
// (docs/architecture.md, "GPU start-up").
class GpuOpening {
 public:
  explicit GpuOpening(const ShardLayout& layout);
  // Waits for the opening and returns the GPUs, or rethrows open_gpus' error
  // (every call: the first waits, the later return at once). Thread-safe.
  const std::vector<SelectedGpu>& wait();
  // From construction until the last context was made (after wait()).
  double seconds() const { return seconds_; }

 private:
  std::vector<SelectedGpu> devices_;
  double seconds_ = 0;
  std::exception_ptr error_;
  std::once_flag joined_;
  host::ThreadGroup thread_;  // last: its destructor joins before the rest goes
};

}  // namespace metawarp::pipeline::gpu
