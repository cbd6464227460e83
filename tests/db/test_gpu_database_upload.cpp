// The upload overlapped with the load (StreamingIndexUpload as load()'s
// observer) puts the same compact shards on the GPU as the upload after the
// load, for any thread count and 1-4 shards:
// each shard holds its features' lists as 32-bit offsets from its first
// location and the locations as global window ids; a load that fails leaves
// nothing hanging.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <filesystem>
#include <string>
#include <vector>

#include "catch.hpp"
#include "db/database.hpp"
#include "file_bytes.hpp"
#include "kernels/part_lookup.hpp"
#include "large_database.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "pipeline/gpu/device_database.hpp"
#include "pipeline/query/gpu_query.hpp"
#include "scratch_dir.hpp"

using namespace metawarp;
using metawarp::test::ScratchDir;

namespace {

template <class T>
std::vector<T> download(const T* device, std::size_t count) {
  std::vector<T> host(count);
  if (count > 0)
    REQUIRE(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost) ==
            cudaSuccess);
  return host;
}

// The shards together are the index, converted: offsets relative to each
// shard, locations as window_base[target] + window.
void require_on_device(const pipeline::gpu::DeviceDatabase& device, const db::Database& db) {
  const db::FeatureIndex& index = db.index;
  std::vector<std::uint64_t> base(db.targets.size() + 1, 0);
  for (std::size_t t = 0; t < db.targets.size(); ++t)
    base[t + 1] = base[t] + db.targets[t].windows;
  const auto& cuts = device.cuts();
  REQUIRE(cuts.front().first_feature == 0);
  REQUIRE(cuts.back().end_feature == index.feature_count());
  REQUIRE(cuts.front().range.begin == 0);
  REQUIRE(cuts.back().range.end == index::feature_space_end);
  // Balanced: each shard's locations + features within a list of its share.
  std::uint64_t longest = 0;
  for (std::size_t f = 0; f < index.feature_count(); ++f)
    longest = std::max(longest, index.offsets()[f + 1] - index.offsets()[f]);
  const std::uint64_t share = (index.location_count() + index.feature_count()) / cuts.size();
  for (std::size_t s = 0; s < cuts.size(); ++s) {
    CAPTURE(s);
    const auto& c = cuts[s];
    const std::uint64_t weight =
        c.end_location - c.first_location + c.end_feature - c.first_feature;
    CHECK(weight <= share + longest + 2);
    CHECK(weight + longest + 2 >= share);
    if (s > 0) {
      REQUIRE(c.first_feature == cuts[s - 1].end_feature);
      REQUIRE(c.range.begin == cuts[s - 1].range.end);
    }
    // Every feature of the shard lies in its range.
    for (std::uint64_t f = c.first_feature; f < c.end_feature; ++f)
      if (!c.range.contains(index.features()[f])) FAIL("feature " << f << " outside its shard");
    const kernels::ShardView view = device.shard(s).view();
    REQUIRE(device.shard(s).lookup_capacity() > c.end_feature - c.first_feature);
    std::vector<std::uint32_t> offsets, ids;
    for (std::uint64_t f = c.first_feature; f <= c.end_feature; ++f)
      offsets.push_back(std::uint32_t(index.offsets()[f] - c.first_location));
    for (std::uint64_t i = c.first_location; i < c.end_location; ++i) {
      const sketch::Location l = index.locations()[i];
      ids.push_back(std::uint32_t(base[l.target] + l.window));
    }
    REQUIRE(download(view.offsets, offsets.size()) == offsets);
    REQUIRE(download(view.locations, ids.size()) == ids);
    // The lookup holds each feature once, with its list number.
    std::vector<std::uint64_t> entries;
    for (std::uint64_t f = c.first_feature; f < c.end_feature; ++f)
      entries.push_back(std::uint64_t(index.features()[f]) << 32 | (f - c.first_feature));
    REQUIRE(device.shard(s).lookup_entries(cudaStreamLegacy) == entries);
  }
}

}  // namespace

TEST_CASE("the streaming upload puts the compact shards on the GPU as the upload after the load") {
  ScratchDir dir("gpu_upload");
  const auto path = dir / "db.mwdb";
  const db::Database original = db::test::large_database();
  db::save(original, path);
  for (unsigned shards : {1u, 2u, 3u, 4u})
    for (unsigned threads : {1u, 3u, 0u}) {
      CAPTURE(shards, threads);
      pipeline::ShardLayout layout;
      layout.shards_per_gpu = shards;
      pipeline::gpu::StreamingIndexUpload upload(layout);
      const db::Database loaded = db::load(path, threads, &upload);
      const pipeline::gpu::DeviceDatabase streamed = upload.finish(loaded);
      REQUIRE(loaded.index == original.index);
      REQUIRE(streamed.cuts().size() == shards);
      require_on_device(streamed, loaded);
      const pipeline::gpu::DeviceDatabase after = pipeline::gpu::upload_index(loaded, layout);
      require_on_device(after, loaded);
      CHECK(streamed.bytes() == after.bytes());
      if (shards == 1) CHECK(streamed.bytes() == pipeline::gpu_database_bytes(loaded));
    }
}

TEST_CASE("a load that fails while uploading throws and leaves the upload to be dropped") {
  ScratchDir dir("gpu_upload_bad");
  const auto path = dir / "db.mwdb";
  db::save(db::test::large_database(), path);
  std::vector<char> bytes = db::test::read_bytes(path);
  bytes[bytes.size() - 100] ^= 1;  // in the locations
  db::test::write_bytes(path, bytes);
  pipeline::gpu::StreamingIndexUpload upload(pipeline::ShardLayout{{0}, 2});
  std::string error;
  try {
    db::load(path, 0, &upload);
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  CHECK(error.find("checksum mismatch in section 'locations'") != std::string::npos);
}

TEST_CASE("the features the GPU lookup table reserves are found like any other") {
  // 2^32 - 2 and 2^32 - 1 are the table's empty and erased markers; the
  // shard keeps their lists beside the table. Each feature's list has a
  // length of its own, so a wrong list shows in the counts.
  const std::vector<std::vector<sketch::feature_t>> cases = {
      {3, 0x80000000u, 0xfffffffeu, 0xffffffffu}, {3, 0xfffffffdu, 0xffffffffu},
      {0xfffffffeu}, {5, 0xfffffffeu}};
  for (const auto& values : cases)
    for (unsigned shards : {1u, 2u}) {
      CAPTURE(values, shards);
      db::IndexArray<sketch::feature_t> features(values.size());
      db::IndexArray<std::uint64_t> offsets(values.size() + 1);
      db::IndexArray<sketch::Location> locations;
      for (std::size_t i = 0; i < values.size(); ++i) {
        features[i] = values[i];
        offsets[i] = locations.size();
        for (std::uint32_t w = 0; w <= i; ++w) locations.push_back(sketch::Location{0, w});
      }
      offsets[values.size()] = locations.size();
      const db::FeatureIndex index(std::move(features), std::move(offsets), std::move(locations));
      const std::vector<std::uint32_t> window_base = {0, 16};
      pipeline::ShardLayout layout;
      layout.shards_per_gpu = shards;
      const pipeline::gpu::DeviceDatabase device =
          pipeline::gpu::upload_index(index, window_base, layout);
      std::vector<std::uint64_t> entries;
      for (std::size_t s = 0; s < device.cuts().size(); ++s) {
        const auto& c = device.cuts()[s];
        std::vector<std::uint64_t> expected;
        for (std::uint64_t f = c.first_feature; f < c.end_feature; ++f)
          expected.push_back(std::uint64_t(index.features()[f]) << 32 | (f - c.first_feature));
        CHECK(device.shard(s).lookup_entries(cudaStreamLegacy) == expected);
      }
      std::vector<sketch::feature_t> queries = {0, 3, 5, 0x80000000u, 0xfffffffdu, 0xfffffffeu,
                                                0xffffffffu};
      cuda::device_buffer<sketch::feature_t> query_buffer(queries.size());
      query_buffer.copy_from_host(queries.data(), queries.size(), cudaStreamLegacy);
      cuda::device_buffer<kernels::ListRange> ranges(queries.size());
      cuda::device_buffer<std::uint64_t> counts(queries.size() + 1), positions(queries.size() + 1);
      kernels::CubScratch scratch;
      kernels::count_part_hits(device.view(0), index::FeatureRange{}, query_buffer.data(),
                               queries.size(), ranges.data(), counts.data(), positions.data(),
                               scratch, cudaStreamLegacy);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      const std::vector<kernels::ListRange> found = download(ranges.data(), queries.size());
      for (std::size_t q = 0; q < queries.size(); ++q) {
        CAPTURE(queries[q]);
        CHECK(found[q].count == index.find(queries[q]).size());
      }
    }
}

namespace {

// A shard of n ascending, distinct features (7i + 3) without locations.
kernels::DeviceShard shard_of(std::uint64_t n) {
  std::vector<sketch::feature_t> features(n);
  for (std::uint64_t i = 0; i < n; ++i) features[i] = sketch::feature_t(7 * i + 3);
  kernels::DeviceShard shard(n, 0);
  REQUIRE(cudaMemcpy(shard.features(), features.data(), n * sizeof(sketch::feature_t),
                     cudaMemcpyHostToDevice) == cudaSuccess);
  return shard;
}

}  // namespace

TEST_CASE("a GPU lookup table that cannot be built at its size is built larger, or says why") {
  // With no evictions allowed a feature whose first bucket is full cannot be
  // placed; at 80 % full about a fifth of the buckets overflow, so every build
  // at the rule's size fails, and one at 16 times the slots cannot.
  const std::uint64_t n = 100000;
  kernels::LookupBuildPolicy policy;
  policy.max_evictions = 0;
  policy.same_size_attempts = 2;
  SECTION("grown") {
    policy.growing_attempts = 3;
    policy.growth = 4;
    kernels::DeviceShard shard = shard_of(n);
    shard.build_lookup(cudaStreamLegacy, policy);
    CHECK(shard.lookup_attempts() > policy.same_size_attempts);
    CHECK(shard.lookup_capacity() > index::lookup_capacity(n));
    CHECK(shard.bytes() == shard.lookup_capacity() * 8 + (n + 1) * 4);
    std::vector<std::uint64_t> expected;
    for (std::uint64_t i = 0; i < n; ++i) expected.push_back((7 * i + 3) << 32 | i);
    CHECK(shard.lookup_entries(cudaStreamLegacy) == expected);
  }
  SECTION("not grown") {
    policy.growing_attempts = 0;
    kernels::DeviceShard shard = shard_of(n);
    std::string error;
    try {
      shard.build_lookup(cudaStreamLegacy, policy);
    } catch (const std::runtime_error& e) {
      error = e.what();
    }
    CHECK(error == "building the GPU lookup table of 100000 features: the features did not fit "
                   "after 2 attempts");
    CHECK_THROWS_AS(shard.view(), std::logic_error);  // no table half built
  }
  SECTION("the rule's size") {
    kernels::DeviceShard shard = shard_of(n);
    shard.build_lookup(cudaStreamLegacy);
    CHECK(shard.lookup_capacity() == index::lookup_capacity(n));
  }
}
