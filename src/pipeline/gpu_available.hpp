#pragma once
// Whether the GPU executors can run here. Implemented in src/pipeline/gpu/
// when built with CUDA; without CUDA, src/pipeline/no_gpu/ says why not.
#include <string>

namespace metawarp::pipeline {

// Empty when a usable CUDA device is present; otherwise why not.
std::string gpu_unavailable_reason();

}  // namespace metawarp::pipeline
