#include "kernels/device_index.cuh"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "metawarp/cuda/error.hpp"
#include "metawarp/tables/launch.cuh"

namespace metawarp::kernels {
namespace {

// 0, 1, ..., n - 1: each feature's list number, the value the table keeps
// for it (the library's build takes values as an array).
cuda::device_buffer<std::uint32_t> list_numbers(std::uint64_t n, cudaStream_t stream) {
  cuda::device_buffer<std::uint32_t> lists(n);
  std::uint32_t* out = lists.data();
  tables::launch_thread_per_item(n, stream, [=] __device__(std::uint64_t i, bool valid) {
    if (valid) out[i] = std::uint32_t(i);
  }, "numbering the GPU shard's lists");
  return lists;
}

tables::CuckooOptions cuckoo_options(std::uint64_t seed, const LookupBuildPolicy& policy) {
  tables::CuckooOptions options;
  options.seed = seed;
  // A shard's features are distinct: each insert is one bucket read and one
  // CAS, with no search for a copy and no pass removing racing copies.
  options.unique_keys_checked = false;
  if (policy.max_evictions) options.max_evictions = *policy.max_evictions;
  return options;
}

}  // namespace

DeviceShard::DeviceShard(std::uint64_t features, std::uint64_t locations)
    : features_(features), offsets_(features + 1), locations_(locations) {}

DeviceShard::DeviceShard(DeviceShard&&) noexcept = default;
DeviceShard& DeviceShard::operator=(DeviceShard&&) noexcept = default;
DeviceShard::~DeviceShard() = default;

void DeviceShard::build_lookup(cudaStream_t stream, const LookupBuildPolicy& policy) {
  const std::uint64_t count = features_.size();
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
  const cuda::device_buffer<std::uint32_t> lists = list_numbers(inserted, stream);

  // The library's build: from empty, again with the next seed while an
  // eviction chain runs out; first at the rule's size, then growing.
  auto table = std::make_unique<FeatureLookup>(FeatureLookup{
      FeatureLookupTable(index::lookup_capacity(count), cuckoo_options(0, policy), stream)});
  if (table->table.capacity() != index::lookup_capacity(count))
    throw std::logic_error("the GPU lookup table's capacity is not index::lookup_capacity");
  tables::CuckooBuildResult result = table->table.build(
      features_.data(), lists.data(), inserted, stream,
      tables::CuckooRetry{std::max(1, policy.same_size_attempts), 1.0});
  int attempts = result.attempts;
  if (result.status.has(tables::Status::table_full) && policy.growing_attempts > 0) {
    const std::uint64_t grown =
        std::uint64_t(double(table->table.capacity()) * policy.growth) + 1;
    table.reset();  // its memory first
    table = std::make_unique<FeatureLookup>(FeatureLookup{
        FeatureLookupTable(grown, cuckoo_options(result.seed + 1, policy), stream)});
    result = table->table.build(features_.data(), lists.data(), inserted, stream,
                                tables::CuckooRetry{policy.growing_attempts, policy.growth});
    attempts += result.attempts;
  }
  if (result.status.has_error())
    throw std::runtime_error(
        "building the GPU lookup table of " + std::to_string(inserted) + " features: " +
        (result.status.has(tables::Status::table_full)
             ? "the features did not fit after " + std::to_string(attempts) + " attempts"
             : "the table reported errors (bits " + std::to_string(result.status.bits()) + ")"));
  lookup_ = std::move(table);
  lookup_slots_ = lookup_->table.capacity();
  lookup_attempts_ = attempts;
  features_ = cuda::device_buffer<sketch::feature_t>();
}

ShardView DeviceShard::view() const {
  if (!lookup_) throw std::logic_error("DeviceShard::view before build_lookup");
  return ShardView{describe(lookup_->table),
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
    : shards_(cuda::copy_to_device(shards, stream)),
      shard_begins_(cuda::copy_to_device(shard_begins, stream)),
      window_base_(cuda::copy_to_device(window_base, stream)) {
  cuda::check(cudaStreamSynchronize(stream), "uploading the GPU shard table");
}

}  // namespace metawarp::kernels
