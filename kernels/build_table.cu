#include "kernels/build_table.hpp"

#include "kernels/sketch_insert.cuh"
#include "metawarp/tables/bucket_list_table.cuh"
#include "metawarp/tables/multi_value_table.cuh"

namespace metawarp::kernels {

using sketch::feature_t;

struct BuildTable::Impl {
  virtual ~Impl() = default;
  virtual void sketch_insert(const BatchView& batch, const sketch::SketchParams& params,
                             index::FeatureRange range, const SentinelSpill& spill,
                             cudaStream_t stream) = 0;
  virtual tables::Status pop_status(cudaStream_t stream) = 0;
  virtual std::uint64_t size(cudaStream_t stream) const = 0;
  virtual std::uint64_t retrieve_all(feature_t* features, std::uint64_t* locations,
                                     cudaStream_t stream) const = 0;
};

namespace {

template <class Table>
struct TableImpl final : BuildTable::Impl {
  template <class... Args>
  explicit TableImpl(Args&&... args) : table(std::forward<Args>(args)...) {}

  void sketch_insert(const BatchView& batch, const sketch::SketchParams& params,
                     index::FeatureRange range, const SentinelSpill& spill,
                     cudaStream_t stream) override {
    kernels::sketch_insert(batch, params, SketchTargets{range, range, PairBuffer{}, spill},
                           table.ref(), stream);
  }
  tables::Status pop_status(cudaStream_t stream) override { return table.pop_status(stream); }
  std::uint64_t size(cudaStream_t stream) const override { return table.size(stream); }
  std::uint64_t retrieve_all(feature_t* features, std::uint64_t* locations,
                             cudaStream_t stream) const override {
    return table.retrieve_all(features, locations, stream);
  }

  Table table;
};

}  // namespace

BuildTable::BuildTable(BuildTableKind kind, std::uint64_t slots, std::uint64_t pool_words,
                       cudaStream_t stream) {
  if (kind == BuildTableKind::multi_value)
    impl_ = std::make_unique<TableImpl<tables::MultiValueHashTable<feature_t, std::uint64_t>>>(
        slots, tables::TableOptions{}, stream);
  else
    impl_ = std::make_unique<TableImpl<tables::BucketListHashTable<feature_t, std::uint64_t>>>(
        slots, pool_words, tables::BucketListOptions{}, stream);
}

BuildTable::~BuildTable() = default;
BuildTable::BuildTable(BuildTable&&) noexcept = default;
BuildTable& BuildTable::operator=(BuildTable&&) noexcept = default;

void BuildTable::sketch_insert(const BatchView& batch, const sketch::SketchParams& params,
                               index::FeatureRange range, const SentinelSpill& spill,
                               cudaStream_t stream) {
  impl_->sketch_insert(batch, params, range, spill, stream);
}
tables::Status BuildTable::pop_status(cudaStream_t stream) { return impl_->pop_status(stream); }
std::uint64_t BuildTable::size(cudaStream_t stream) const { return impl_->size(stream); }
std::uint64_t BuildTable::retrieve_all(feature_t* features, std::uint64_t* locations,
                                       cudaStream_t stream) const {
  return impl_->retrieve_all(features, locations, stream);
}

}  // namespace metawarp::kernels
