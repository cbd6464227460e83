// A GPU build's index left in device memory (pipeline/gpu/device_index.hpp)
// in shards cut at any feature positions (some empty): written piece by
// piece, each writer thread copying its pieces down through its own pinned
// staging, it is the file save() writes from the host, byte for byte, for
// any staging size (down to many copies per piece) and thread count;
// download() gives the index itself; a CUDA error during the copies fails
// the save with one message naming the GPU, keeps the old file and leaves no
// temporary.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "catch.hpp"
#include "db/database.hpp"
#include "db/file_writer.hpp"
#include "error_of.hpp"
#include "file_bytes.hpp"
#include "kernels/finalize.hpp"
#include "large_database.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "pipeline/gpu/device_index.hpp"
#include "sample_database.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using namespace metawarp;
using db::test::read_bytes;
using pipeline::gpu::DeviceIndex;
using test::ScratchDir;

namespace {

template <class T>
cuda::device_buffer<T> upload(const T* host, std::size_t n) {
  cuda::device_buffer<T> device(n);
  if (n > 0)
    REQUIRE(cudaMemcpy(device.data(), host, n * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
  return device;
}

// Features [begin, end) of `index` as the GPU finalize leaves them on GPU 0:
// the list offsets from the shard's first location, no last one.
kernels::FinalizedIndex shard_of(const db::FeatureIndex& index, std::size_t begin,
                                 std::size_t end) {
  const std::uint64_t first = index.offsets()[begin], last = index.offsets()[end];
  std::vector<std::uint64_t> offsets;
  for (std::size_t i = begin; i < end; ++i) offsets.push_back(index.offsets()[i] - first);
  kernels::FinalizedIndex shard;
  shard.features = upload(index.features().data() + begin, end - begin);
  shard.offsets = upload(offsets.data(), offsets.size());
  const auto* locations = reinterpret_cast<const std::uint64_t*>(index.locations().data());
  shard.locations = upload(locations + first, last - first);
  shard.feature_count = end - begin;
  shard.location_count = last - first;
  return shard;
}

// `index` cut at the feature positions `cuts` (ascending, 0 first, the
// feature count last; equal ones make empty shards).
std::vector<DeviceIndex::Shard> shards_of(const db::FeatureIndex& index,
                                          const std::vector<std::size_t>& cuts) {
  std::vector<DeviceIndex::Shard> shards;
  for (std::size_t s = 0; s + 1 < cuts.size(); ++s)
    shards.push_back(DeviceIndex::Shard{0, shard_of(index, cuts[s], cuts[s + 1])});
  return shards;
}

std::vector<std::vector<std::size_t>> cut_sets(std::size_t features) {
  return {{0, features},
          {0, features / 3, features},
          {0, 0, 12345, 12345, features / 2 + 7, features, features}};
}

std::size_t files_in(const fs::path& dir) {
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.is_regular_file();
  return files;
}

}  // namespace

TEST_CASE("an index written from GPU shards is the file save() writes from the host") {
  ScratchDir dir("gpu_index_write");
  // Features 4.2 checksum chunks in the file, counts 1.05, locations 10.5.
  const db::Database db = db::test::large_database();
  db::save(db, dir / "host.mwdb");
  const std::vector<char> expected = read_bytes(dir / "host.mwdb");
  struct Writing {
    std::size_t staging;
    unsigned threads;
  };
  for (const std::vector<std::size_t>& cuts : cut_sets(db.index.feature_count())) {
    for (const Writing w : {Writing{0, 1}, Writing{0, 0}, Writing{4096, 3}, Writing{1000, 0}}) {
      CAPTURE(cuts, w.staging, w.threads);
      const DeviceIndex device(shards_of(db.index, cuts), w.staging);
      CHECK(device.feature_count() == db.index.feature_count());
      CHECK(device.location_count() == db.index.location_count());
      db::save(db, device.source(), dir / "gpu.mwdb", w.threads, output::Sync::when_replacing);
      REQUIRE(read_bytes(dir / "gpu.mwdb") == expected);
    }
  }
}

TEST_CASE("an index downloaded from GPU shards is the index") {
  const db::Database db = db::test::large_database();
  for (const std::vector<std::size_t>& cuts : cut_sets(db.index.feature_count())) {
    for (const std::size_t staging : {std::size_t(0), std::size_t(1000)}) {
      CAPTURE(cuts, staging);
      CHECK(DeviceIndex(shards_of(db.index, cuts), staging).download() == db.index);
    }
  }
  CHECK(DeviceIndex(std::vector<DeviceIndex::Shard>{}).download() == db::FeatureIndex());
  const db::FeatureIndex empty;
  CHECK(DeviceIndex(shards_of(empty, {0, 0, 0})).download() == empty);
}

TEST_CASE("a CUDA error while the index is copied down fails the save and keeps the old file") {
  ScratchDir dir("gpu_index_write_error");
  const db::Database db = db::test::make_database(5);
  const fs::path path = dir / "db.mwdb";
  db::save(db, path);
  const std::vector<char> before = read_bytes(path);
  int count = 0;
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  std::vector<DeviceIndex::Shard> shards =
      shards_of(db.index, {0, db.index.feature_count() / 2, db.index.feature_count()});
  shards[1].device = count;  // no such GPU: its copies fail at selecting it
  const DeviceIndex device(std::move(shards));
  const std::string message =
      test::error_of([&] { db::save(db, device.source(), path, 0, output::Sync::always); });
  CHECK(message.rfind("copying the database index down from GPU " + std::to_string(count) +
                          " failed: ",
                      0) == 0);
  CHECK(message.find('\n') == std::string::npos);
  CHECK(read_bytes(path) == before);
  CHECK(files_in(dir.path()) == 1);  // no temporary
}
