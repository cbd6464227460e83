#pragma once
// A GPU build's finished index left in device memory (issue 28): one shard,
// or several, each owning a contiguous feature range, in range order, each on
// its GPU. The database file is written from it directly: every writer
// thread copies the range it asks for down through a pinned staging buffer
// of its own (cudaMemcpyAsync on a stream of its own for that GPU, then a
// wait), so the download and the write overlap chunk by chunk, and the bytes
// are those of the index downloaded whole (the shards' list offsets rebased
// as db::concatenate does). A caller that keeps the index takes it to the
// host with download(), through the same copies.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "db/file_format.hpp"
#include "kernels/finalize.hpp"
#include "metawarp/index/part_ranges.hpp"
#include "pipeline/build/built_index.hpp"

namespace metawarp::pipeline::gpu {

class DeviceIndex final : public BuiltIndex::Resident {
 public:
  // Bytes of pinned staging per writer thread: the largest piece the file
  // writer asks for (the list offsets behind one checksum chunk of 1-byte
  // counts, and one more) is copied straight into it; a larger piece goes
  // through it in several copies.
  static constexpr std::size_t default_staging_bytes =
      db::file_format::checksum_chunk_bytes * sizeof(std::uint64_t) + 64;

  struct Shard {
    int device = 0;
    kernels::FinalizedIndex index;  // complete: its stream waited for
  };

  // `shards` in feature order; `staging_bytes` (0: the default) is rounded
  // down to whole 8-byte elements.
  explicit DeviceIndex(std::vector<Shard> shards, std::size_t staging_bytes = 0);
  ~DeviceIndex() override;  // frees each shard's memory with its GPU selected
  DeviceIndex(const DeviceIndex&) = delete;
  DeviceIndex& operator=(const DeviceIndex&) = delete;

  std::uint64_t feature_count() const override { return features_.total(); }
  std::uint64_t location_count() const override { return locations_.total(); }
  // Each call copies its piece down; a CUDA error throws std::runtime_error
  // naming the GPU (the file writer then removes its temporary).
  db::IndexSource source() const override;
  db::FeatureIndex download() const override;

  enum class Array { features, offsets, locations };
  class Reader;  // device_index.cpp: the writer threads' staging

 private:
  std::vector<Shard> shards_;
  index::PartRanges features_;   // the shards' features (and list offsets)
  index::PartRanges locations_;  // their locations
  std::size_t staging_bytes_;
};

}  // namespace metawarp::pipeline::gpu
