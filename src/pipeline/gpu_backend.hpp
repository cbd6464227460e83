#pragma once
// The GPU executors. Implemented in kernels/ when metawarp is built with CUDA;
// without CUDA, src/pipeline/no_gpu/ provides versions that say why not.
// Same interface, same results as the CPU executors.
#include <string>

#include "pipeline/build.hpp"

namespace metawarp::pipeline {

// Empty when a usable CUDA device is present; otherwise why not.
std::string gpu_unavailable_reason();

// The GPU build: byte-identical database to build_database() for the same options.
db::Database build_database_gpu(const BuildOptions& options, BuildSummary* summary = nullptr);

}  // namespace metawarp::pipeline
