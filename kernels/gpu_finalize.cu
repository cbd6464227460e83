#include "kernels/gpu_finalize.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cstring>
#include <vector>
#include <chrono>

#include "db/host_memory.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"

namespace metawarp::kernels {
namespace {

using sketch::feature_t;

// Runs a CUB algorithm: once to size its scratch memory, once for real.
template <class Call>
void run_cub(Call call, cudaStream_t stream, const char* what) {
  std::size_t bytes = 0;
  cuda::check(call(nullptr, bytes), what);
  cuda::device_buffer<char> temp(std::max<std::size_t>(bytes, 1));
  cuda::check(call(temp.data(), bytes), what);
  (void)stream;
}

// The Location struct's memory layout (target, then window) as a 64-bit word,
// so the result can be copied straight into std::vector<Location>.
__device__ __forceinline__ std::uint64_t as_location_bytes(std::uint64_t packed) {
  return (packed >> 32) | (packed << 32);
}

// Counts the runs of equal values in sorted features (grid-stride).
__global__ void count_runs(const feature_t* features, std::uint64_t n, std::uint64_t* runs) {
  std::uint64_t local = 0;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    local += i == 0 || features[i] != features[i - 1];
  if (local) atomicAdd(reinterpret_cast<unsigned long long*>(runs), (unsigned long long)local);
}

// One thread per feature run: counts its distinct locations and how many the
// cap rule keeps (0 for a removed overpopulated feature); kept[runs] = 0 so
// an exclusive scan over runs + 1 entries ends with the total.
__global__ void count_kept(const std::uint64_t* locations, const std::uint64_t* run_start,
                           const std::uint64_t* run_length, std::uint64_t runs,
                           std::uint32_t cap, bool remove_overpopulated, std::uint64_t* kept) {
  const std::uint64_t r = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= runs) return;
  const std::uint64_t* l = locations + run_start[r];
  std::uint64_t distinct = 0;
  for (std::uint64_t i = 0; i < run_length[r]; ++i) distinct += i == 0 || l[i] != l[i - 1];
  kept[r] = remove_overpopulated && distinct > cap ? 0 : (distinct < cap ? distinct : cap);
  if (r == runs - 1) kept[runs] = 0;
}

// One thread per feature run: writes its kept locations, ascending.
__global__ void write_kept(const std::uint64_t* locations, const std::uint64_t* run_start,
                           const std::uint64_t* run_length, const std::uint64_t* out_offset,
                           std::uint64_t runs, std::uint64_t* out) {
  const std::uint64_t r = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= runs) return;
  const std::uint64_t* l = locations + run_start[r];
  std::uint64_t* o = out + out_offset[r];
  const std::uint64_t kept = out_offset[r + 1] - out_offset[r];
  std::uint64_t written = 0;
  for (std::uint64_t i = 0; i < run_length[r] && written < kept; ++i)
    if (i == 0 || l[i] != l[i - 1]) o[written++] = as_location_bytes(l[i]);
}

__global__ void flag_kept(const std::uint64_t* out_offset, std::uint64_t runs, std::uint8_t* flags) {
  const std::uint64_t r = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r < runs) flags[r] = out_offset[r + 1] != out_offset[r];
}

unsigned blocks_for(std::uint64_t n, unsigned block) {
  return unsigned(std::max<std::uint64_t>(1, (n + block - 1) / block));
}

// Device -> pageable host copy through two pinned staging buffers: the DMA of
// one chunk overlaps the host copy of the previous one, which several threads
// share. Several times faster than cudaMemcpy into pageable memory.
class StagedDownload {
 public:
  static constexpr std::size_t chunk = std::size_t(64) << 20;

  explicit StagedDownload(cudaStream_t stream) : stream_(stream) {
    for (auto& b : staging_) b = cuda::pinned_buffer<char>(chunk);
  }

  void operator()(void* host, const void* device, std::size_t bytes, const char* what) {
    auto* dst = static_cast<char*>(host);
    const auto* src = static_cast<const char*>(device);
    const std::size_t chunks = (bytes + chunk - 1) / chunk;
    std::size_t pending = 0;  // bytes of chunk c-1 waiting in staging_[(c-1)%2]
    for (std::size_t c = 0; c <= chunks; ++c) {
      if (c < chunks) {
        const std::size_t size = std::min(chunk, bytes - c * chunk);
        cuda::check(cudaMemcpyAsync(staging_[c % 2].data(), src + c * chunk, size,
                                    cudaMemcpyDeviceToHost, stream_), what);
        cuda::check(cudaEventRecord(done_[c % 2].get(), stream_), what);
      }
      if (c > 0) parallel_copy(dst + (c - 1) * chunk, staging_[(c - 1) % 2].data(), pending);
      if (c < chunks) {
        cuda::check(cudaEventSynchronize(done_[c % 2].get()), what);
        pending = std::min(chunk, bytes - c * chunk);
      }
    }
  }

 private:
  static void parallel_copy(char* dst, const char* src, std::size_t bytes) {
    db::in_parallel(bytes, db::parts_for(bytes, std::size_t(4) << 20),
                    [=](std::size_t b, std::size_t e) { std::memcpy(dst + b, src + b, e - b); });
  }

  cudaStream_t stream_;
  cuda::pinned_buffer<char> staging_[2];
  cuda::event done_[2];
};

template <class T>
T read_scalar(const T* device, cudaStream_t stream) {
  T value{};
  cuda::check(cudaMemcpyAsync(&value, device, sizeof(T), cudaMemcpyDeviceToHost, stream),
              "reading a GPU counter");
  cuda::check(cudaStreamSynchronize(stream), "reading a GPU counter");
  return value;
}

}  // namespace

db::FeatureIndex finalize_on_gpu(cuda::device_buffer<feature_t>& features,
                                 cuda::device_buffer<std::uint64_t>& locations, std::uint64_t n,
                                 const db::DatabaseParams& params, cudaStream_t stream,
                                 FinalizeTimes* times) {
  if (n == 0) return db::FeatureIndex({}, {0}, {});
  FinalizeTimes local;
  FinalizeTimes& t = times ? *times : local;
  auto clock = std::chrono::steady_clock::now();
  auto lap = [&clock] {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - clock).count();
    clock = now;
    return s;
  };
  const auto items = std::int64_t(n);
  cuda::device_buffer<std::uint64_t> location_out;

  // 1. Sort by (feature, location): location order first, then a stable sort by feature.
  {
    cuda::device_buffer<feature_t> features_alt(n);
    cuda::device_buffer<std::uint64_t> locations_alt(n);
    cub::DoubleBuffer<std::uint64_t> loc(locations.data(), locations_alt.data());
    cub::DoubleBuffer<feature_t> feat(features.data(), features_alt.data());
    run_cub([&](void* t, std::size_t& b) {
      return cub::DeviceRadixSort::SortPairs(t, b, loc, feat, items, 0, 64, stream);
    }, stream, "sorting pairs by location");
    run_cub([&](void* t, std::size_t& b) {
      return cub::DeviceRadixSort::SortPairs(t, b, feat, loc, items, 0, 32, stream);
    }, stream, "sorting pairs by feature");
    // Keep the sorted halves in the caller's buffers; the other feature half
    // is freed, the other location half becomes the output.
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
  count_runs<<<blocks_for(std::min<std::uint64_t>(n, std::uint64_t(1) << 22), block), block, 0,
               stream>>>(sorted_features, n, counter.data());
  cuda::check_launch("count_runs");
  const std::uint64_t runs = read_scalar(counter.data(), stream);
  cuda::device_buffer<feature_t> run_feature(runs);
  cuda::device_buffer<std::uint64_t> run_length(runs);
  run_cub([&](void* t, std::size_t& b) {
    return cub::DeviceRunLengthEncode::Encode(t, b, sorted_features, run_feature.data(),
                                              run_length.data(), counter.data(), items, stream);
  }, stream, "finding feature runs");
  cuda::device_buffer<std::uint64_t> run_start(runs);
  run_cub([&](void* t, std::size_t& b) {
    return cub::DeviceScan::ExclusiveSum(t, b, run_length.data(), run_start.data(),
                                         std::int64_t(runs), stream);
  }, stream, "placing feature runs");

  // 3. The cap rule per run; an in-place exclusive scan over runs + 1 counts
  // turns them into output offsets (offset[runs]: the total).
  cuda::device_buffer<std::uint64_t> out_offset(runs + 1);
  count_kept<<<blocks_for(runs, block), block, 0, stream>>>(
      sorted_locations, run_start.data(), run_length.data(), runs,
      params.max_locations_per_feature, params.remove_overpopulated_features, out_offset.data());
  cuda::check_launch("count_kept");
  run_cub([&](void* t, std::size_t& b) {
    return cub::DeviceScan::ExclusiveSum(t, b, out_offset.data(), out_offset.data(),
                                         std::int64_t(runs + 1), stream);
  }, stream, "placing kept locations");
  write_kept<<<blocks_for(runs, block), block, 0, stream>>>(
      sorted_locations, run_start.data(), run_length.data(), out_offset.data(), runs,
      location_out.data());
  cuda::check_launch("write_kept");

  // 4. Features that kept anything, with their list offsets (written over the
  // sorted features and the run starts, both no longer needed).
  cuda::device_buffer<std::uint8_t> flags(runs);
  flag_kept<<<blocks_for(runs, block), block, 0, stream>>>(out_offset.data(), runs, flags.data());
  cuda::check_launch("flag_kept");
  feature_t* feature_out = features.data();
  std::uint64_t* offsets_out = run_start.data();
  run_cub([&](void* t, std::size_t& b) {
    return cub::DeviceSelect::Flagged(t, b, run_feature.data(), flags.data(), feature_out,
                                      counter.data(), std::int64_t(runs), stream);
  }, stream, "selecting kept features");
  const std::uint64_t feature_count = read_scalar(counter.data(), stream);
  run_cub([&](void* t, std::size_t& b) {
    return cub::DeviceSelect::Flagged(t, b, out_offset.data(), flags.data(), offsets_out,
                                      counter.data(), std::int64_t(runs), stream);
  }, stream, "selecting kept offsets");
  const std::uint64_t location_count = read_scalar(out_offset.data() + runs, stream);

  t.gpu = lap();

  // 5. Download the query layout. Allocating gigabytes of host memory (page
  // faults, zeroing) costs more than the copies: the arrays are on huge pages,
  // faulted in by all cores (make_large_vector).
  std::vector<feature_t> host_features = db::make_large_vector<feature_t>(feature_count);
  std::vector<std::uint64_t> host_offsets = db::make_large_vector<std::uint64_t>(feature_count + 1);
  std::vector<sketch::Location> host_locations =
      db::make_large_vector<sketch::Location>(location_count);
  static_assert(sizeof(sketch::Location) == sizeof(std::uint64_t));
  StagedDownload download(stream);
  download(host_features.data(), feature_out, feature_count * sizeof(feature_t),
           "downloading features");
  download(host_offsets.data(), offsets_out, feature_count * sizeof(std::uint64_t),
           "downloading list offsets");
  download(host_locations.data(), location_out.data(), location_count * sizeof(std::uint64_t),
           "downloading locations");
  host_offsets.back() = location_count;
  t.download = lap();
  db::FeatureIndex index(std::move(host_features), std::move(host_offsets),
                         std::move(host_locations));
  t.index = lap();
  return index;
}

}  // namespace metawarp::kernels
