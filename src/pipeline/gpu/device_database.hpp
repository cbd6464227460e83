#pragma once
// A loaded database's feature index, uploaded to one or several GPUs for the
// query, cut into shards of contiguous feature ranges (kernels/device_index.hpp
// for the compact layout on the device).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "db/database.hpp"
#include "kernels/device_index.hpp"
#include "metawarp/index/feature_range.hpp"
#include "pipeline/shard_layout.hpp"

namespace metawarp::pipeline::gpu {

// Where shard s lies in the index arrays, and its GPU.
struct ShardCut {
  std::uint64_t first_feature = 0, end_feature = 0;    // positions in the features
  std::uint64_t first_location = 0, end_location = 0;  // positions in the locations
  index::FeatureRange range;
  int device = 0;
};

// The layout's shards cut at feature positions so that each holds about the
// same locations + features (a feature's list is never split); a shard holds
// fewer than 2^32 locations and features (more shards per GPU are cut when the
// layout's would not). Empty shards are allowed. The cut depends only on the
// arrays and the layout.
std::vector<ShardCut> cut_shards(std::span<const sketch::feature_t> features,
                                 std::span<const std::uint64_t> offsets, ShardLayout layout);

// window_base[t]: the windows of the targets before t (the last entry: all).
// Throws std::runtime_error when the database has 2^32 windows or more (the
// GPU's 32-bit window ids).
std::vector<std::uint32_t> window_bases(std::span<const db::Target> targets);

class IndexWriter;

// The shards on their GPUs and, on each GPU, the table the kernels look
// features up in.
class DeviceDatabase {
 public:
  DeviceDatabase(DeviceDatabase&&) noexcept = default;
  DeviceDatabase& operator=(DeviceDatabase&&) noexcept = default;
  ~DeviceDatabase();

  const ShardLayout& layout() const { return layout_; }  // shards_per_gpu as cut
  const std::vector<ShardCut>& cuts() const { return cuts_; }
  const kernels::DeviceShard& shard(std::size_t s) const { return shards_[s]; }
  // The view for kernels running on layout().devices[i].
  kernels::DeviceIndexView view(std::size_t device_index) const {
    return tables_[device_index].view();
  }
  std::uint64_t bytes() const;
  std::vector<std::uint64_t> device_bytes() const;  // per layout().devices entry

 private:
  friend class IndexWriter;
  DeviceDatabase() = default;
  ShardLayout layout_;
  std::vector<ShardCut> cuts_;
  std::vector<kernels::DeviceShard> shards_;
  std::vector<kernels::DeviceIndexTable> tables_;
};

// Enables peer access between every two GPUs of `devices` (the kernels read
// the shards of the others). Throws std::runtime_error naming the GPUs that
// cannot, and what to use instead.
void enable_peer_access(const std::vector<int>& devices);

// Uploads db's index in shards and builds their lookups; returns when done.
// Throws std::runtime_error saying what it needs when it does not fit.
DeviceDatabase upload_index(const db::Database& db, const ShardLayout& layout);
// The same for any index (a part of a database: db/partial_load.hpp) whose
// locations' targets have these window bases (window_bases()).
DeviceDatabase upload_index(const db::FeatureIndex& index,
                            std::span<const std::uint32_t> window_base,
                            const ShardLayout& layout);

// The same, while db::load() reads the file: passed to load() as its
// observer, it converts every chunk of locations read and sends it through a
// pinned staging buffer to its shard's GPU at once, so that the copies
// overlap the reading of the next chunks (features and offsets, a fifth of the
// bytes, go at finish()):
//
//   StreamingIndexUpload upload(layout);
//   db::Database db = db::load(path, threads, &upload);
//   gpu::DeviceDatabase index = upload.finish(db);
//
// Nothing uploaded is used unless load() returned (it checks the checksums
// after the chunks went).
class StreamingIndexUpload final : public db::IndexReadObserver {
 public:
  explicit StreamingIndexUpload(const ShardLayout& layout);
  ~StreamingIndexUpload() override;  // waits for copies still queued
  StreamingIndexUpload(const StreamingIndexUpload&) = delete;
  StreamingIndexUpload& operator=(const StreamingIndexUpload&) = delete;

  void targets(std::span<const db::Target> targets) override;
  void sizes(std::uint64_t features, std::uint64_t locations) override;
  void chunk(Array array, std::uint64_t begin, const void* data, std::size_t bytes) override;
  // Uploads the features and offsets and builds the lookups; call once, with
  // what load() returned.
  DeviceDatabase finish(const db::Database& db);

 private:
  ShardLayout layout_;
  std::vector<std::uint32_t> window_base_;
  std::uint64_t features_ = 0, locations_ = 0;
  const sketch::feature_t* host_features_ = nullptr;  // load()'s arrays, seen in chunks
  const std::uint64_t* host_offsets_ = nullptr;
  std::once_flag planned_;
  std::unique_ptr<IndexWriter> writer_;  // made at the first chunk of locations
};

}  // namespace metawarp::pipeline::gpu
