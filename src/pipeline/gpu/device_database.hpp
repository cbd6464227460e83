#pragma once
// A loaded database's feature index, uploaded to the GPU for the query.
#include <cuda_runtime_api.h>

#include "db/database.hpp"
#include "kernels/device_index.hpp"

namespace metawarp::pipeline::gpu {

// Uploads `index` and builds its lookup table; returns when done. Throws
// std::runtime_error saying what it needs when it does not fit.
kernels::DeviceIndex upload_index(const db::FeatureIndex& index, cudaStream_t stream);

}  // namespace metawarp::pipeline::gpu
