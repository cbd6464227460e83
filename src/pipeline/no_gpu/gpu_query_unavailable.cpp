// Linked instead of kernels/ when metawarp is built without CUDA.
#include <stdexcept>

#include "pipeline/gpu_backend.hpp"
#include "pipeline/gpu_query.hpp"

namespace metawarp::pipeline {

std::unique_ptr<GpuQueryEngine> make_gpu_query_engine(const db::Database&,
                                                      const ClassifierOptions&,
                                                      const GpuQueryOptions&) {
  throw std::runtime_error("GPU query requested, but " + gpu_unavailable_reason() +
                           "; use --device cpu");
}

}  // namespace metawarp::pipeline
