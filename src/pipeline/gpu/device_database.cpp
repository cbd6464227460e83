#include "pipeline/gpu/device_database.hpp"

#include <cstdio>
#include <stdexcept>

#include "metawarp/cuda/error.hpp"
#include "pipeline/gpu/staged_copy.hpp"
#include "pipeline/gpu_query.hpp"

namespace metawarp::pipeline::gpu {

kernels::DeviceIndex upload_index(const db::FeatureIndex& index, cudaStream_t stream) {
  const std::uint64_t features = index.feature_count();
  if (features >= 0xffffffffull)
    throw std::runtime_error("the database holds too many distinct features for the GPU lookup");
  // The sorted features stay on the GPU until the lookup is built.
  const std::uint64_t needed = gpu_database_bytes(features, index.location_count()) +
                               features * sizeof(sketch::feature_t);
  std::size_t free_bytes = 0, total_bytes = 0;
  cuda::check(cudaMemGetInfo(&free_bytes, &total_bytes), "querying free GPU memory");
  if (needed > free_bytes) {
    char msg[256];
    std::snprintf(msg, sizeof msg,
                  "the database needs %.2f GiB of GPU memory to query, but only %.2f GiB are "
                  "free; use --device cpu",
                  double(needed) / (1 << 30), double(free_bytes) / (1 << 30));
    throw std::runtime_error(msg);
  }
  kernels::DeviceIndex device(features, gpu_lookup_slots(features), index.location_count());
  {
    StagedCopy copy(stream);
    copy.upload(device.features(), index.features().data(),
                features * sizeof(sketch::feature_t), "uploading the database to the GPU");
    copy.upload(device.offsets(), index.offsets().data(),
                index.offsets().size() * sizeof(std::uint64_t), "uploading the database to the GPU");
    copy.upload(device.locations(), index.locations().data(),
                index.location_count() * sizeof(sketch::Location),
                "uploading the database to the GPU");
  }
  device.build_lookup(stream);
  return device;
}

}  // namespace metawarp::pipeline::gpu
