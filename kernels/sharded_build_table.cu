#include "kernels/sharded_build_table.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/sketch_insert.cuh"
#include "metawarp/cuda/memory_pool.hpp"
#include "metawarp/tables/bucket_list_table.cuh"
#include "metawarp/tables/distributed/distributed_table.cuh"
#include "metawarp/tables/multi_value_table.cuh"

namespace metawarp::kernels {

using sketch::feature_t;
namespace dist = tables::distributed;

struct ShardedBuildTable::Impl {
  virtual ~Impl() = default;
  virtual void sketch_insert(unsigned shard, const BatchView& batch,
                             const sketch::SketchParams& params, index::FeatureRange kept,
                             const PairBuffer& others, const SentinelSpill& spill,
                             cudaStream_t stream) = 0;
  virtual void insert_from_shards(const std::vector<ShardPairs>& batches) = 0;
  virtual tables::Status pop_status(unsigned shard) = 0;
  virtual std::uint64_t size(unsigned shard) const = 0;
  virtual std::uint64_t retrieve_all(unsigned shard, feature_t* features,
                                     std::uint64_t* locations, cudaStream_t stream) const = 0;
  virtual const char* exchange_name() const = 0;
};

namespace {

std::vector<int> devices_of(const std::vector<ShardedBuildTable::Shard>& shards) {
  std::vector<int> devices;
  for (const auto& s : shards) devices.push_back(s.device);
  return devices;
}

dist::RangeOwner owner_of(const std::vector<ShardedBuildTable::Shard>& shards) {
  std::vector<std::uint64_t> first;
  for (const auto& s : shards) first.push_back(s.first_feature);
  return dist::RangeOwner(first);
}

template <class Table>
struct DistributedImpl final : ShardedBuildTable::Impl {
  template <class MakeShard>
  DistributedImpl(const std::vector<ShardedBuildTable::Shard>& shards, MakeShard make_shard)
      : table(devices_of(shards), owner_of(shards), make_shard,
              dist::DistributedOptions{dist::Mode::distributed, dist::ExchangeKind::local_copy}) {}

  // Shard s's table takes what it owns of `kept` (by the owner that routes
  // the exchanged pairs too); the rest of `kept` travels.
  void sketch_insert(unsigned shard, const BatchView& batch, const sketch::SketchParams& params,
                     index::FeatureRange kept, const PairBuffer& others,
                     const SentinelSpill& spill, cudaStream_t stream) override {
    const dist::RangeOwner& owner = table.owner();
    if (shard >= owner.shards) throw std::out_of_range("sketch_insert: no such shard");
    const std::uint64_t end =
        shard + 1 < owner.shards ? owner.first[shard + 1] : index::feature_space_end;
    index::FeatureRange own{std::max(kept.begin, owner.first[shard]), std::min(kept.end, end)};
    own.end = std::max(own.begin, own.end);  // nothing of `kept` owned: empty
    kernels::sketch_insert(batch, params, SketchTargets{own, kept, others, spill},
                           table.shard(shard).ref(), stream);
  }
  void insert_from_shards(const std::vector<ShardPairs>& batches) override {
    std::vector<dist::ShardBatch<feature_t, std::uint64_t>> in;
    for (const ShardPairs& b : batches) in.push_back({b.features, b.locations, b.n});
    table.insert_from_shards(in);
  }
  tables::Status pop_status(unsigned shard) override {
    dist::DeviceGuard on(table.shards().device(shard));
    return table.shard(shard).pop_status(table.shards().stream(shard));
  }
  std::uint64_t size(unsigned shard) const override {
    dist::DeviceGuard on(table.shards().device(shard));
    return table.shard(shard).size(table.shards().stream(shard));
  }
  std::uint64_t retrieve_all(unsigned shard, feature_t* features, std::uint64_t* locations,
                             cudaStream_t stream) const override {
    dist::DeviceGuard on(table.shards().device(shard));
    return table.shard(shard).retrieve_all(features, locations, stream);
  }
  const char* exchange_name() const override { return table.exchange_name(); }

  dist::DistributedTable<Table, dist::RangeOwner> table;
};

using MultiValue = tables::MultiValueHashTable<feature_t, std::uint64_t>;
using BucketList = tables::BucketListHashTable<feature_t, std::uint64_t>;

// A shard's table is cleared on the legacy default stream of its device,
// which the device synchronisation ends before any shard stream uses it.
template <class Table, class... Args>
Table make_table(Args&&... args) {
  Table table(std::forward<Args>(args)..., cudaStream_t{});
  cuda::check(cudaDeviceSynchronize(), "setting up a shard's GPU table");
  return table;
}

}  // namespace

ShardedBuildTable::ShardedBuildTable(BuildTableKind kind, const std::vector<Shard>& shards) {
  if (kind == BuildTableKind::multi_value)
    impl_ = std::make_unique<DistributedImpl<MultiValue>>(shards, [&shards](unsigned s) {
      return make_table<MultiValue>(shards[s].slots, tables::TableOptions{});
    });
  else
    impl_ = std::make_unique<DistributedImpl<BucketList>>(shards, [&shards](unsigned s) {
      return make_table<BucketList>(shards[s].slots, shards[s].pool_words,
                                    tables::BucketListOptions{});
    });
}

// The exchange's temporaries stay cached in the devices' memory pools
// (metawarp/cuda/memory_pool.hpp) for the next call; the build has none
// after its tables, and its finalize wants that memory (the memory plan
// counts the exchange's buffers only while the tables live).
ShardedBuildTable::~ShardedBuildTable() {
  impl_.reset();
  try {
    cuda::trim_device_pools();
  } catch (const std::exception&) {
    // A failed trim leaves the memory cached: the finalize's own allocation says so if it matters.
  }
}

void ShardedBuildTable::sketch_insert(unsigned shard, const BatchView& batch,
                                      const sketch::SketchParams& params,
                                      index::FeatureRange kept, const PairBuffer& others,
                                      const SentinelSpill& spill, cudaStream_t stream) {
  impl_->sketch_insert(shard, batch, params, kept, others, spill, stream);
}

void ShardedBuildTable::insert_from_shards(const std::vector<ShardPairs>& batches) {
  impl_->insert_from_shards(batches);
}
tables::Status ShardedBuildTable::pop_status(unsigned shard) { return impl_->pop_status(shard); }
std::uint64_t ShardedBuildTable::size(unsigned shard) const { return impl_->size(shard); }
std::uint64_t ShardedBuildTable::retrieve_all(unsigned shard, feature_t* features,
                                              std::uint64_t* locations,
                                              cudaStream_t stream) const {
  return impl_->retrieve_all(shard, features, locations, stream);
}
const char* ShardedBuildTable::exchange_name() const { return impl_->exchange_name(); }

}  // namespace metawarp::kernels
