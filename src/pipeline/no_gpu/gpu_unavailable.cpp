// Linked instead of src/pipeline/gpu/ when metawarp is built without CUDA:
// every GPU entry point says why there is no GPU.
#include <stdexcept>

#include "pipeline/build/build_executor.hpp"
#include "pipeline/gpu_available.hpp"
#include "pipeline/query/gpu_query.hpp"

namespace metawarp::pipeline {
namespace {

[[noreturn]] void unavailable(const char* what) {
  throw std::runtime_error(std::string(what) + " requested, but " + gpu_unavailable_reason() +
                           "; use --device cpu");
}

}  // namespace

std::string gpu_unavailable_reason() { return "this metawarp was built without CUDA"; }

GpuStartUp::GpuStartUp(const std::vector<int>&) {}
GpuStartUp::~GpuStartUp() = default;

std::unique_ptr<BuildExecutor> make_gpu_build_executor(const BuildOptions&, const BuildInputs&) {
  unavailable("GPU build");
}

unsigned gpu_partitions_needed(const BuildOptions&, const BuildInputs&) {
  unavailable("GPU build");
}

std::unique_ptr<GpuQueryEngine> make_gpu_query_engine(const db::Database&,
                                                      const ClassifierOptions&,
                                                      const GpuQueryOptions&) {
  unavailable("GPU query");
}

GpuLoadedDatabase load_for_gpu_query(const std::filesystem::path&, const ClassifierOptions&,
                                     const GpuQueryOptions&) {
  unavailable("GPU query");
}

std::unique_ptr<GpuHitCollector> make_gpu_hit_collector(std::span<const db::Target>,
                                                        const ShardLayout&) {
  unavailable("GPU query");
}

}  // namespace metawarp::pipeline
