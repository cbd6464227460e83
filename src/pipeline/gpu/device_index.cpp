#include "pipeline/gpu/device_index.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/host/cores.hpp"
#include "metawarp/host/large_vector.hpp"
#include "metawarp/host/parallel_for.hpp"

namespace metawarp::pipeline::gpu {
namespace {

using Array = DeviceIndex::Array;
using sketch::feature_t;
static_assert(sizeof(sketch::Location) == sizeof(std::uint64_t));  // the packed location

std::size_t element_bytes(Array array) {
  return array == Array::features ? sizeof(feature_t) : sizeof(std::uint64_t);
}

const char* device_array(const kernels::FinalizedIndex& index, Array array) {
  switch (array) {
    case Array::features: return reinterpret_cast<const char*>(index.features.data());
    case Array::offsets: return reinterpret_cast<const char*>(index.offsets.data());
    case Array::locations: return reinterpret_cast<const char*>(index.locations.data());
  }
  throw std::logic_error("unknown index array");
}

// For a destructor, which cannot report a failure: one that is not left as
// the thread's last CUDA error either.
void select_quietly(int device) {
  if (cudaSetDevice(device) != cudaSuccess) (void)cudaGetLastError();
}

void check_copy(cudaError_t status, int device) {
  cuda::check(status, ("copying the database index down from GPU " + std::to_string(device))
                          .c_str());
}

}  // namespace

// The staging of the threads that read the index, one per worker number
// (parallel_write.hpp), made on its first call: pinned memory, and a stream
// for each GPU it copies from. A worker is used by one thread at a time.
class DeviceIndex::Reader {
 public:
  explicit Reader(const DeviceIndex& index) : index_(index) {}
  ~Reader() {
    for (const auto& worker : workers_) {
      if (!worker) continue;
      for (auto& [device, stream] : worker->streams) {
        select_quietly(device);
        const cuda::stream gone(std::move(stream));
      }
    }
  }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Elements [first, first + n) of `array` in the worker's own memory (its
  // staging when they fit), valid until its next call.
  const char* fetch(Array array, std::uint64_t first, std::uint64_t n, unsigned w) {
    Worker& worker = worker_of(w);
    char* out = worker.staging.data();
    const std::size_t bytes = n * element_bytes(array);
    if (bytes > worker.staging.size()) {
      worker.larger.resize(std::max(worker.larger.size(), (bytes + 7) / 8));
      out = reinterpret_cast<char*>(worker.larger.data());
    }
    copy(array, first, n, out, worker);
    return out;
  }

  // All n elements of `array` at `out`, in pieces of a staging's size on all
  // cores.
  void copy_all(Array array, char* out, std::uint64_t n) {
    const std::uint64_t per_piece = index_.staging_bytes_ / element_bytes(array);
    const std::uint64_t pieces = (n + per_piece - 1) / per_piece;
    host::parallel_for(pieces, unsigned(std::min<std::uint64_t>(pieces, host::usable_cores())),
                       [&](std::size_t p, unsigned w) {
      const std::uint64_t first = p * per_piece;
      copy(array, first, std::min(per_piece, n - first), out + first * element_bytes(array),
           worker_of(w));
    });
  }

 private:
  struct Worker {
    cuda::pinned_buffer<char> staging;
    std::map<int, cuda::stream> streams;  // by device
    std::vector<std::uint64_t> larger;    // a piece larger than the staging
  };

  // Worker w is used by one thread at a time, so only the vector needs the
  // lock; the pinned memory (slow to allocate) is allocated outside it.
  Worker& worker_of(unsigned w) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (w < workers_.size() && workers_[w]) return *workers_[w];
    }
    auto worker = std::make_unique<Worker>();
    worker->staging = cuda::pinned_buffer<char>(index_.staging_bytes_);
    const std::lock_guard<std::mutex> lock(mutex_);
    if (workers_.size() <= w) workers_.resize(w + 1);
    workers_[w] = std::move(worker);
    return *workers_[w];
  }

  // Elements [first, first + n) of `array` at `out` (host memory, or the
  // worker's staging itself when they fit it): each piece of a shard copied
  // into the staging on the worker's stream for the shard's GPU and waited
  // for, the staging copied on to `out`; the offsets rebased to the whole.
  void copy(Array array, std::uint64_t first, std::uint64_t n, char* out, Worker& worker) {
    const std::size_t size = element_bytes(array);
    const index::PartRanges& parts =
        array == Array::locations ? index_.locations_ : index_.features_;
    // The offsets have one entry more than the features, the location count,
    // which no GPU holds.
    const std::uint64_t held = array == Array::offsets && first + n > parts.total() ? n - 1 : n;
    const std::uint64_t per_copy = worker.staging.size() / size;
    if (out == worker.staging.data() && held > per_copy)
      throw std::logic_error("a piece of the index larger than its staging");
    for (std::uint64_t done = 0; done < held; done += per_copy) {
      const std::uint64_t round = std::min(per_copy, held - done);
      parts.for_each_piece(first + done, round, [&](const index::PartPiece& piece) {
        const Shard& shard = index_.shards_[piece.part];
        check_copy(cudaSetDevice(shard.device), shard.device);
        auto stream = worker.streams.find(shard.device);
        if (stream == worker.streams.end())
          stream = worker.streams.emplace(shard.device, cuda::stream()).first;
        check_copy(cudaMemcpyAsync(worker.staging.data() + piece.at * size,
                                   device_array(shard.index, array) + piece.first * size,
                                   piece.count * size, cudaMemcpyDeviceToHost, stream->second),
                   shard.device);
        check_copy(cudaStreamSynchronize(stream->second), shard.device);
      });
      if (out != worker.staging.data())
        std::memcpy(out + done * size, worker.staging.data(), round * size);
    }
    if (array != Array::offsets) return;
    auto* offsets = reinterpret_cast<std::uint64_t*>(out);
    parts.for_each_piece(first, held, [&](const index::PartPiece& piece) {
      const std::uint64_t base = index_.locations_.start(piece.part);
      if (base == 0) return;
      for (std::uint64_t i = 0; i < piece.count; ++i) offsets[piece.at + i] += base;
    });
    if (held < n) offsets[held] = index_.locations_.total();
  }

  const DeviceIndex& index_;
  std::mutex mutex_;  // guards workers_ (not the workers)
  std::vector<std::unique_ptr<Worker>> workers_;
};

namespace {

std::vector<std::uint64_t> counts(const std::vector<DeviceIndex::Shard>& shards,
                                  std::uint64_t kernels::FinalizedIndex::*count) {
  std::vector<std::uint64_t> out;
  for (const DeviceIndex::Shard& shard : shards) out.push_back(shard.index.*count);
  return out;
}

}  // namespace

DeviceIndex::DeviceIndex(std::vector<Shard> shards, std::size_t staging_bytes)
    : shards_(std::move(shards)),
      features_(counts(shards_, &kernels::FinalizedIndex::feature_count)),
      locations_(counts(shards_, &kernels::FinalizedIndex::location_count)),
      staging_bytes_(std::max<std::size_t>(
          (staging_bytes == 0 ? default_staging_bytes : staging_bytes) / 8 * 8, 8)) {}

DeviceIndex::~DeviceIndex() {
  for (Shard& shard : shards_) {
    select_quietly(shard.device);
    shard.index = kernels::FinalizedIndex();
  }
}

db::IndexSource DeviceIndex::source() const {
  // Shared by the source's functions: the staging goes with the last copy.
  const auto reader = std::make_shared<Reader>(*this);
  db::IndexSource source;
  source.features = feature_count();
  source.locations = location_count();
  source.feature_values = [reader](unsigned w, std::uint64_t first, std::size_t n) {
    return reinterpret_cast<const feature_t*>(reader->fetch(Array::features, first, n, w));
  };
  source.offsets = [reader](unsigned w, std::uint64_t first, std::size_t n) {
    return reinterpret_cast<const std::uint64_t*>(reader->fetch(Array::offsets, first, n + 1, w));
  };
  source.location_values = [reader](unsigned w, std::uint64_t first, std::size_t n) {
    return reinterpret_cast<const sketch::Location*>(reader->fetch(Array::locations, first, n, w));
  };
  return source;
}

db::FeatureIndex DeviceIndex::download() const {
  if (feature_count() == 0 && location_count() == 0) return db::FeatureIndex();
  // Written whole by the copies: their first touch faults the pages in on
  // all cores.
  auto features = host::make_uninitialized_large_vector<feature_t>(feature_count());
  auto offsets = host::make_uninitialized_large_vector<std::uint64_t>(feature_count() + 1);
  auto locations = host::make_uninitialized_large_vector<sketch::Location>(location_count());
  Reader reader(*this);
  reader.copy_all(Array::features, reinterpret_cast<char*>(features.data()), features.size());
  reader.copy_all(Array::offsets, reinterpret_cast<char*>(offsets.data()), offsets.size());
  reader.copy_all(Array::locations, reinterpret_cast<char*>(locations.data()), locations.size());
  return db::FeatureIndex(std::move(features), std::move(offsets), std::move(locations));
}

}  // namespace metawarp::pipeline::gpu
