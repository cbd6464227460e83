#include "kernels/part_lookup.hpp"

#include <cub/device/device_scan.cuh>

#include "kernels/device_index.cuh"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/grid.hpp"

namespace metawarp::kernels {
namespace {

constexpr unsigned block = 256;

// A lookup group per feature (the table's find is cooperative); the group's
// first thread writes.
__global__ void count_part_hits_kernel(DeviceIndexView index, index::FeatureRange range,
                                       const sketch::feature_t* features, std::uint64_t count,
                                       ListRange* ranges, std::uint64_t* counts) {
  const LookupGroup group = cg::tiled_partition<lookup_group_size>(cg::this_thread_block());
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x / lookup_group_size;
  for (std::uint64_t i = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / lookup_group_size;
       i <= count; i += stride) {
    if (i == count) {  // the scan's last entry: the total
      if (group.thread_rank() == 0) counts[i] = 0;
      continue;
    }
    // Outside the part's range the feature cannot be in it: no probing.
    const sketch::feature_t f = features[i];
    const ListRange list = range.contains(f) ? find(group, index, f) : ListRange{0, 0, 0};
    if (group.thread_rank() == 0) {
      ranges[i] = list;
      counts[i] = list.count;
    }
  }
}

__global__ void gather_part_hits_kernel(DeviceIndexView index, const ListRange* ranges,
                                        std::uint64_t first, std::uint64_t count,
                                        const std::uint64_t* positions, sketch::Location* hits) {
  // A warp per feature: its list is read by consecutive lanes.
  const std::uint64_t warps = std::uint64_t(gridDim.x) * blockDim.x / 32;
  const unsigned lane = threadIdx.x % 32;
  const std::uint64_t base = positions[first];
  for (std::uint64_t k = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; k < count;
       k += warps) {
    const std::uint64_t i = first + k;
    const ListRange list = ranges[i];
    if (list.count == 0) continue;
    const std::uint32_t* ids = index.shards[list.shard].locations + list.begin;
    sketch::Location* out = hits + (positions[i] - base);
    for (std::uint32_t j = lane; j < list.count; j += 32) {
      const std::uint32_t id = ids[j];
      const std::uint32_t target = target_of(index, id);
      out[j] = sketch::Location{target, id - index.window_base[target]};
    }
  }
}

}  // namespace

void count_part_hits(const DeviceIndexView& index, index::FeatureRange range,
                     const sketch::feature_t* features, std::uint64_t count, ListRange* ranges,
                     std::uint64_t* counts, std::uint64_t* positions, CubScratch& scratch,
                     cudaStream_t stream) {
  count_part_hits_kernel<<<cuda::blocks_for((count + 1) * lookup_group_size, block), block, 0,
                           stream>>>(
      index, range, features, count, ranges, counts);
  cuda::check_launch("count_part_hits_kernel");
  scratch.run(
      [&](void* temp, std::size_t& bytes) {
        return cub::DeviceScan::ExclusiveSum(temp, bytes, counts, positions, count + 1, stream);
      },
      "scanning the part's hit counts");
}

void gather_part_hits(const DeviceIndexView& index, const ListRange* ranges, std::uint64_t first,
                      std::uint64_t last, const std::uint64_t* positions,
                      sketch::Location* hits, cudaStream_t stream) {
  if (last <= first) return;
  const std::uint64_t count = last - first;
  gather_part_hits_kernel<<<cuda::blocks_for(count * 32, block), block, 0, stream>>>(
      index, ranges, first, count, positions, hits);
  cuda::check_launch("gather_part_hits_kernel");
}

}  // namespace metawarp::kernels
