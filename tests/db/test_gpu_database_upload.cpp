// The upload overlapped with the load (StreamingIndexUpload as load()'s
// observer) puts the same arrays on the GPU as the upload after the load, for
// format 2 and format 1 files and any thread count; a load that fails leaves
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
#include "large_database.hpp"
#include "metawarp/cuda/stream.hpp"
#include "pipeline/gpu/device_database.hpp"
#include "scratch_dir.hpp"

using namespace metawarp;
using metawarp::test::ScratchDir;

namespace {

template <class T>
std::vector<T> download(const T* device, std::size_t count) {
  std::vector<T> host(count);
  REQUIRE(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost) ==
          cudaSuccess);
  return host;
}

void require_on_device(const kernels::DeviceIndex& device, const db::FeatureIndex& index) {
  const kernels::DeviceIndexView view = device.view();
  const auto offsets = download(view.offsets, index.offsets().size());
  REQUIRE(std::memcmp(offsets.data(), index.offsets().data(), offsets.size() * 8) == 0);
  const auto locations = download(view.locations, index.location_count());
  REQUIRE(std::memcmp(locations.data(), index.locations().data(), locations.size() * 8) == 0);
}

}  // namespace

TEST_CASE("the streaming upload puts the index on the GPU as the upload after the load does") {
  ScratchDir dir("gpu_upload");
  const auto path = dir / "db.mwdb";
  const db::Database original = db::test::large_database();
  db::save(original, path);
  for (unsigned threads : {1u, 3u, 0u}) {
    INFO("threads " << threads);
    const cuda::stream stream;
    pipeline::gpu::StreamingIndexUpload upload(stream);
    const db::Database loaded = db::load(path, threads, &upload);
    const kernels::DeviceIndex streamed = upload.finish();
    REQUIRE(loaded.index == original.index);
    require_on_device(streamed, loaded.index);
    const kernels::DeviceIndex after = pipeline::gpu::upload_index(loaded.index, stream);
    CHECK(streamed.bytes() == after.bytes());
    // The lookups hold the same (feature, list) pairs; their order may differ.
    const std::size_t slots = streamed.view().slot_mask + 1;
    auto a = download(streamed.view().slots, slots), b = download(after.view().slots, slots);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    CHECK(a == b);
  }
}

TEST_CASE("a load that fails while uploading throws and leaves the upload to be dropped") {
  ScratchDir dir("gpu_upload_bad");
  const auto path = dir / "db.mwdb";
  db::save(db::test::large_database(), path);
  std::vector<char> bytes = db::test::read_bytes(path);
  bytes[bytes.size() - 100] ^= 1;  // in the locations
  db::test::write_bytes(path, bytes);
  const cuda::stream stream;
  pipeline::gpu::StreamingIndexUpload upload(stream);
  std::string error;
  try {
    db::load(path, 0, &upload);
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  CHECK(error.find("checksum mismatch in section 'locations'") != std::string::npos);
}
