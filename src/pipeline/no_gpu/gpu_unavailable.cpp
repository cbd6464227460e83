// Linked instead of kernels/ when metawarp is built without CUDA.
#include <stdexcept>

#include "pipeline/gpu_backend.hpp"

namespace metawarp::pipeline {

std::string gpu_unavailable_reason() { return "this metawarp was built without CUDA"; }

db::Database build_database_gpu(const BuildOptions&, BuildSummary*) {
  throw std::runtime_error("GPU build requested, but " + gpu_unavailable_reason() +
                           "; use --device cpu");
}

}  // namespace metawarp::pipeline
