#include "kernels/device_index.cuh"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "metawarp/cuda/error.hpp"
#include "metawarp/tables/launch.cuh"

namespace metawarp::kernels {
namespace {

template <class T>
cuda::device_buffer<T> upload(std::span<const T> host, cudaStream_t stream) {
  cuda::device_buffer<T> device(host.size());
  device.copy_from_host(host.data(), host.size(), stream);
  return device;
}

}  // namespace

DeviceShard::DeviceShard(std::uint64_t features, std::uint64_t locations)
    : features_(features), offsets_(features + 1), locations_(locations) {}

DeviceShard::DeviceShard(DeviceShard&&) noexcept = default;
DeviceShard& DeviceShard::operator=(DeviceShard&&) noexcept = default;
DeviceShard::~DeviceShard() = default;

void DeviceShard::build_lookup(cudaStream_t stream) {
  const std::uint64_t count = features_.size();
  lookup_ = std::make_unique<FeatureLookup>(
      FeatureLookup{FeatureLookupTable(index::lookup_capacity(count), {}, stream)});
  if (lookup_->table.capacity() != index::lookup_capacity(count))
    throw std::logic_error("the GPU lookup table's capacity is not index::lookup_capacity");
  // The features ascend, so the two the table reserves (the largest values)
  // can only be the last ones; they keep their lists beside the table.
  using sentinels = tables::KeySentinels<sketch::feature_t>;
  sketch::feature_t last[2] = {0, 0};
  const std::uint64_t tail = std::min<std::uint64_t>(count, 2);
  if (tail > 0)
    cuda::check(cudaMemcpyAsync(last, features_.data() + (count - tail),
                                tail * sizeof(sketch::feature_t), cudaMemcpyDeviceToHost, stream),
                "reading the GPU shard's last features");
  cuda::check(cudaStreamSynchronize(stream), "reading the GPU shard's last features");
  std::uint64_t inserted = count;
  for (std::uint64_t i = tail; i-- > 0 && !sentinels::is_valid(last[i]);) {
    --inserted;
    reserved_lists_[last[i] - sentinels::tombstone] = std::uint32_t(inserted);
  }
  // The library's insert, one group per feature; its value is the feature's
  // position (the list number), so no array of values is needed.
  const FeatureLookupRef ref = lookup_->table.ref();
  const sketch::feature_t* features = features_.data();
  tables::launch_group_per_item<lookup_group_size>(
      inserted, stream,
      [=] __device__(const LookupGroup& g, std::uint64_t i) {
        ref.insert(g, features[i], std::uint32_t(i));
      },
      "building the GPU lookup table");
  const tables::Status status = lookup_->table.pop_status(stream);  // synchronises
  if (status.has_error())
    throw std::runtime_error("building the GPU lookup table: the table reported errors (bits " +
                             std::to_string(status.bits()) + ")");
  features_ = cuda::device_buffer<sketch::feature_t>();
}

ShardView DeviceShard::view() const {
  if (!lookup_) throw std::logic_error("DeviceShard::view before build_lookup");
  return ShardView{to_bytes(lookup_->table.ref()),
                   {reserved_lists_[0], reserved_lists_[1]},
                   offsets_.data(),
                   locations_.data()};
}

std::vector<std::uint64_t> DeviceShard::lookup_entries(cudaStream_t stream) const {
  if (!lookup_) throw std::logic_error("DeviceShard::lookup_entries before build_lookup");
  const std::uint64_t capacity = lookup_->table.capacity();
  cuda::device_buffer<sketch::feature_t> keys(capacity);
  cuda::device_buffer<std::uint32_t> values(capacity);
  const std::uint64_t n = lookup_->table.retrieve_all(keys.data(), values.data(), stream);
  std::vector<sketch::feature_t> host_keys(n);
  std::vector<std::uint32_t> host_values(n);
  keys.copy_to_host(host_keys.data(), n, stream);
  values.copy_to_host(host_values.data(), n, stream);
  cuda::check(cudaStreamSynchronize(stream), "reading the GPU lookup table");
  std::vector<std::uint64_t> entries;
  for (std::uint64_t i = 0; i < n; ++i)
    entries.push_back(std::uint64_t(host_keys[i]) << 32 | host_values[i]);
  using sentinels = tables::KeySentinels<sketch::feature_t>;
  for (std::uint32_t r = 0; r < 2; ++r)
    if (reserved_lists_[r] != no_list)
      entries.push_back(std::uint64_t(sentinels::tombstone + r) << 32 | reserved_lists_[r]);
  std::sort(entries.begin(), entries.end());
  return entries;
}

DeviceIndexTable::DeviceIndexTable(std::span<const ShardView> shards,
                                   std::span<const std::uint32_t> shard_begins,
                                   std::span<const std::uint32_t> window_base, cudaStream_t stream)
    : shards_(upload(shards, stream)),
      shard_begins_(upload(shard_begins, stream)),
      window_base_(upload(window_base, stream)) {
  cuda::check(cudaStreamSynchronize(stream), "uploading the GPU shard table");
}

}  // namespace metawarp::kernels
