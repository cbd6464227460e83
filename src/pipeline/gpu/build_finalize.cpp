#include "pipeline/gpu/build_finalize.hpp"

#include <stdexcept>
#include <string>

#include "kernels/finalize.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/host/clock.hpp"
#include "pipeline/build/build_executor.hpp"

namespace metawarp::pipeline::gpu {
namespace {

using sketch::feature_t;

std::string describe(tables::Status status) {
  std::string out;
  for (tables::Status::bits_type bit = 1; bit != 0; bit <<= 1)
    if (status.bits() & bit) out += std::string(out.empty() ? "" : "|") + tables::status_flag_name(bit);
  return out;
}

}  // namespace

void check_table_status(tables::Status status, std::uint64_t capacity,
                        const GpuBuildOptions& options) {
  if (!status.has_error()) return;
  const std::string what = "the GPU table ran out of room (" + describe(status) +
                           ") with a capacity of " + std::to_string(capacity) +
                           " (feature, location) pairs: its features hold more than estimated";
  if (options.table_capacity == 0) throw PartitionTooLarge(what);
  throw std::runtime_error(what + "; set --table-capacity larger, or use --device cpu");
}

ExportedPairs export_pairs(
    std::uint64_t stored,
    const std::function<std::uint64_t(feature_t*, std::uint64_t*)>& retrieve_all,
    const std::vector<db::Entry>& spilled, cudaStream_t stream) {
  ExportedPairs out;
  out.total = stored + spilled.size();
  out.features = cuda::device_buffer<feature_t>(out.total);
  out.locations = cuda::device_buffer<std::uint64_t>(out.total);
  if (retrieve_all(out.features.data(), out.locations.data()) != stored)
    throw std::runtime_error("GPU table export lost pairs");
  std::vector<feature_t> spill_features;
  std::vector<std::uint64_t> spill_locations;
  for (const auto& e : spilled) {
    spill_features.push_back(e.feature);
    spill_locations.push_back(e.location.packed());
  }
  cuda::check(cudaMemcpyAsync(out.features.data() + stored, spill_features.data(),
                              spill_features.size() * sizeof(feature_t), cudaMemcpyHostToDevice,
                              stream), "uploading the sentinel spill");
  cuda::check(cudaMemcpyAsync(out.locations.data() + stored, spill_locations.data(),
                              spill_locations.size() * sizeof(std::uint64_t),
                              cudaMemcpyHostToDevice, stream),
              "uploading the sentinel spill");
  cuda::check(cudaStreamSynchronize(stream), "exporting the GPU table");
  return out;
}

kernels::FinalizedIndex finalize_on_gpu(ExportedPairs pairs, index::CapRule rule,
                                        cudaStream_t stream, FinalizeTimes& times) {
  host::Stopwatch clock;
  kernels::FinalizedIndex finalized;
  const std::uint64_t total = pairs.total;
  try {
    finalized = kernels::finalize_pairs(std::move(pairs.features), std::move(pairs.locations),
                                        total, rule, stream);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("GPU finalize of ") + std::to_string(total) +
                             " pairs failed (" + e.what() +
                             "); build with --device cpu or split the references");
  }
  // Complete before the writer's streams read it.
  cuda::check(cudaStreamSynchronize(stream), "finalizing on the GPU");
  times.gpu = clock.lap();
  return finalized;
}

}  // namespace metawarp::pipeline::gpu
