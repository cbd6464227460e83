#include "kernels/finalize.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <utility>

#include "kernels/cub_scratch.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/grid.hpp"

namespace metawarp::kernels {
namespace {

using sketch::feature_t;

// The Location struct's memory layout (target, then window) as a 64-bit word,
// so the result can be copied straight into std::vector<Location>.
__device__ __forceinline__ std::uint64_t as_location_bytes(std::uint64_t packed) {
  return (packed >> 32) | (packed << 32);
}

// Counts the runs of equal values in sorted features.
__global__ void count_runs(const feature_t* features, std::uint64_t n, std::uint64_t* runs) {
  std::uint64_t local = 0;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    local += i == 0 || features[i] != features[i - 1];
  if (local) atomicAdd(reinterpret_cast<unsigned long long*>(runs), (unsigned long long)local);
}

// Per feature run: how many of its distinct locations the cap rule keeps;
// kept[runs] = 0 so an exclusive scan over runs + 1 entries ends with the total.
__global__ void count_kept(const std::uint64_t* locations, const std::uint64_t* run_start,
                           const std::uint64_t* run_length, std::uint64_t runs,
                           index::CapRule rule, std::uint64_t* kept) {
  for (std::uint64_t r = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < runs;
       r += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t* l = locations + run_start[r];
    std::uint64_t distinct = 0;
    for (std::uint64_t i = 0; i < run_length[r]; ++i) distinct += i == 0 || l[i] != l[i - 1];
    kept[r] = index::kept_locations(distinct, rule);
    if (r == runs - 1) kept[runs] = 0;
  }
}

// Per feature run: writes its kept locations, ascending.
__global__ void write_kept(const std::uint64_t* locations, const std::uint64_t* run_start,
                           const std::uint64_t* run_length, const std::uint64_t* out_offset,
                           std::uint64_t runs, std::uint64_t* out) {
  for (std::uint64_t r = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < runs;
       r += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t* l = locations + run_start[r];
    std::uint64_t* o = out + out_offset[r];
    const std::uint64_t kept = out_offset[r + 1] - out_offset[r];
    std::uint64_t written = 0;
    for (std::uint64_t i = 0; i < run_length[r] && written < kept; ++i)
      if (i == 0 || l[i] != l[i - 1]) o[written++] = as_location_bytes(l[i]);
  }
}

__global__ void flag_kept(const std::uint64_t* out_offset, std::uint64_t runs, std::uint8_t* flags) {
  for (std::uint64_t r = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < runs;
       r += std::uint64_t(gridDim.x) * blockDim.x)
    flags[r] = out_offset[r + 1] != out_offset[r];
}

template <class T>
T read_scalar(const T* device, cudaStream_t stream) {
  T value{};
  cuda::check(cudaMemcpyAsync(&value, device, sizeof(T), cudaMemcpyDeviceToHost, stream),
              "reading a GPU counter");
  cuda::check(cudaStreamSynchronize(stream), "reading a GPU counter");
  return value;
}

}  // namespace

FinalizedIndex finalize_pairs(cuda::device_buffer<feature_t> features,
                              cuda::device_buffer<std::uint64_t> locations, std::uint64_t n,
                              index::CapRule rule, cudaStream_t stream) {
  FinalizedIndex result;
  if (n == 0) return result;
  const auto items = std::int64_t(n);
  CubScratch cub;
  cuda::device_buffer<std::uint64_t> location_out;

  // 1. Sort by (feature, location): location order first, then a stable sort by feature.
  {
    cuda::device_buffer<feature_t> features_alt(n);
    cuda::device_buffer<std::uint64_t> locations_alt(n);
    cub::DoubleBuffer<std::uint64_t> loc(locations.data(), locations_alt.data());
    cub::DoubleBuffer<feature_t> feat(features.data(), features_alt.data());
    cub.run([&](void* t, std::size_t& b) {
      return cub::DeviceRadixSort::SortPairs(t, b, loc, feat, items, 0, 64, stream);
    }, "sorting pairs by location");
    cub.run([&](void* t, std::size_t& b) {
      return cub::DeviceRadixSort::SortPairs(t, b, feat, loc, items, 0, 32, stream);
    }, "sorting pairs by feature");
    // Keep the sorted halves; the other feature half is freed, the other
    // location half becomes the output.
    if (feat.Current() != features.data()) std::swap(features, features_alt);
    if (loc.Current() != locations.data()) std::swap(locations, locations_alt);
    location_out = std::move(locations_alt);
  }
  const feature_t* sorted_features = features.data();
  const std::uint64_t* sorted_locations = locations.data();

  // 2. Runs of equal features, sized exactly so memory stays at about
  // 20 bytes per pair plus 29 per distinct feature.
  const unsigned block = 256;
  cuda::device_buffer<std::uint64_t> counter(1);
  counter.fill_bytes(0, stream);
  count_runs<<<cuda::blocks_for(std::min<std::uint64_t>(n, std::uint64_t(1) << 22), block),
               block, 0, stream>>>(sorted_features, n, counter.data());
  cuda::check_launch("count_runs");
  const std::uint64_t runs = read_scalar(counter.data(), stream);
  cuda::device_buffer<feature_t> run_feature(runs);
  cuda::device_buffer<std::uint64_t> run_length(runs);
  cub.run([&](void* t, std::size_t& b) {
    return cub::DeviceRunLengthEncode::Encode(t, b, sorted_features, run_feature.data(),
                                              run_length.data(), counter.data(), items, stream);
  }, "finding feature runs");
  cuda::device_buffer<std::uint64_t> run_start(runs);
  cub.run([&](void* t, std::size_t& b) {
    return cub::DeviceScan::ExclusiveSum(t, b, run_length.data(), run_start.data(),
                                         std::int64_t(runs), stream);
  }, "placing feature runs");

  // 3. The cap rule per run; an in-place exclusive scan over runs + 1 counts
  // turns them into output offsets (offset[runs]: the total).
  cuda::device_buffer<std::uint64_t> out_offset(runs + 1);
  count_kept<<<cuda::blocks_for(runs, block), block, 0, stream>>>(
      sorted_locations, run_start.data(), run_length.data(), runs, rule, out_offset.data());
  cuda::check_launch("count_kept");
  cub.run([&](void* t, std::size_t& b) {
    return cub::DeviceScan::ExclusiveSum(t, b, out_offset.data(), out_offset.data(),
                                         std::int64_t(runs + 1), stream);
  }, "placing kept locations");
  write_kept<<<cuda::blocks_for(runs, block), block, 0, stream>>>(
      sorted_locations, run_start.data(), run_length.data(), out_offset.data(), runs,
      location_out.data());
  cuda::check_launch("write_kept");

  // 4. Features that kept anything, with their list offsets (written over the
  // sorted features and the run starts, both no longer needed).
  cuda::device_buffer<std::uint8_t> flags(runs);
  flag_kept<<<cuda::blocks_for(runs, block), block, 0, stream>>>(out_offset.data(), runs,
                                                                 flags.data());
  cuda::check_launch("flag_kept");
  cub.run([&](void* t, std::size_t& b) {
    return cub::DeviceSelect::Flagged(t, b, run_feature.data(), flags.data(), features.data(),
                                      counter.data(), std::int64_t(runs), stream);
  }, "selecting kept features");
  result.feature_count = read_scalar(counter.data(), stream);
  cub.run([&](void* t, std::size_t& b) {
    return cub::DeviceSelect::Flagged(t, b, out_offset.data(), flags.data(), run_start.data(),
                                      counter.data(), std::int64_t(runs), stream);
  }, "selecting kept offsets");
  result.location_count = read_scalar(out_offset.data() + runs, stream);
  result.features = std::move(features);
  result.offsets = std::move(run_start);
  result.locations = std::move(location_out);
  return result;
}

}  // namespace metawarp::kernels
