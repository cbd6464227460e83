#pragma once
// Whether the GPU executors can run here. Implemented in src/pipeline/gpu/
// when built with CUDA; without CUDA, src/pipeline/no_gpu/ says why not.
#include <string>
#include <vector>

#include "metawarp/host/thread_group.hpp"

namespace metawarp::pipeline {

// Empty when a usable CUDA device is present; otherwise why not.
std::string gpu_unavailable_reason();

// Starts the CUDA contexts of `devices`, one thread each, so that the
// driver's start-up (0.1-0.5 s a GPU, one after another when a single thread
// first touches them) overlaps what the host does before it uses the GPUs
// (listing the inputs, loading the taxonomy); the destructor waits for them.
// A failure is left to that first use, which names it. Without CUDA: nothing.
class GpuStartUp {
 public:
  explicit GpuStartUp(const std::vector<int>& devices);
  ~GpuStartUp();
  GpuStartUp(const GpuStartUp&) = delete;
  GpuStartUp& operator=(const GpuStartUp&) = delete;

 private:
  host::ThreadGroup threads_;
};

}  // namespace metawarp::pipeline
