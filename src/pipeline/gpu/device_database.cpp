#include "pipeline/gpu/device_database.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "db/file_format.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/index/lookup_capacity.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/host/channel.hpp"
#include "metawarp/host/cores.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "pipeline/query/gpu_query.hpp"

namespace metawarp::pipeline::gpu {
namespace {

static_assert(sizeof(kernels::ShardView) + sizeof(std::uint32_t) == gpu_shard_table_bytes);

constexpr const char* uploading = "uploading the database to the GPU";
// A shard's offsets and locations are 32-bit: fewer than this many of each.
constexpr std::uint64_t shard_limit = std::uint64_t(1) << 32;

std::string gib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / double(1 << 30));
  return text;
}

std::uint64_t shard_device_bytes(std::uint64_t features, std::uint64_t locations) {
  // The sorted features stay on the GPU until the lookup is built, and the
  // build takes their list numbers as an array (kernels::DeviceShard::build_lookup).
  return index::lookup_capacity(features) * 8 + (features + 1) * 4 + locations * 4 +
         features * 8;
}

unsigned host_threads() { return std::min(host::usable_cores(), 32u); }

// Two staging buffers per core: one being filled, one being copied.
std::size_t staging_buffers() { return 2 * host_threads(); }

}  // namespace

std::vector<ShardCut> cut_shards(std::span<const sketch::feature_t> features,
                                 std::span<const std::uint64_t> offsets, ShardLayout layout) {
  if (offsets.size() != features.size() + 1 || offsets[0] != 0)
    throw std::invalid_argument("cut_shards: offsets must number features + 1, from 0");
  for (;;) {
    if (layout.shards_per_gpu > (1u << 16))
      throw std::invalid_argument("cut_shards: a location list of 2^32 locations or more");
    const std::vector<std::uint64_t> cut = balanced_cuts(offsets, layout.shards());
    std::vector<ShardCut> cuts(layout.shards());
    bool fits = true;
    for (unsigned s = 0; s < layout.shards(); ++s) {
      ShardCut& c = cuts[s];
      c.first_feature = cut[s];
      c.end_feature = cut[s + 1];
      c.first_location = offsets[cut[s]];
      c.end_location = offsets[cut[s + 1]];
      c.range.begin = s == 0 ? 0
                      : cut[s] < features.size() ? features[cut[s]]
                                                 : index::feature_space_end;
      c.device = layout.device_of(s);
      if (s > 0) cuts[s - 1].range.end = c.range.begin;
      if (c.end_location < c.first_location || c.end_location > offsets.back())
        throw std::invalid_argument("cut_shards: offsets not ascending");
      fits = fits && c.end_location - c.first_location < shard_limit &&
             c.end_feature - c.first_feature < shard_limit - 1;
    }
    if (fits) return cuts;
    layout.shards_per_gpu += 1;  // the lists are shorter than 2^32: this ends
  }
}

std::vector<std::uint32_t> window_bases(std::span<const db::Target> targets) {
  std::vector<std::uint32_t> base(targets.size() + 1);
  std::uint64_t windows = 0;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    base[t] = std::uint32_t(windows);
    windows += targets[t].windows;
    if (windows >= shard_limit)
      throw std::runtime_error(
          "the database holds " + std::to_string(windows) +
          "+ windows; the GPU query addresses at most 2^32 - 1 (32-bit window ids): "
          "use --device cpu");
  }
  base[targets.size()] = std::uint32_t(windows);
  return base;
}

void enable_peer_access(const std::vector<int>& devices) {
  for (int a : devices)
    for (int b : devices) {
      if (a == b) continue;
      int can = 0;
      cuda::check(cudaDeviceCanAccessPeer(&can, a, b), "checking GPU peer access");
      if (!can)
        throw std::runtime_error(
            "GPU " + std::to_string(a) + " cannot read the memory of GPU " + std::to_string(b) +
            " (no peer access), which a database sharded over several GPUs needs; use "
            "--gpus with GPUs that can (nvidia-smi topo -p2p r), or one GPU");
      cuda::check(cudaSetDevice(a), "selecting the GPU");
      const cudaError_t status = cudaDeviceEnablePeerAccess(b, 0);
      if (status == cudaErrorPeerAccessAlreadyEnabled)
        (void)cudaGetLastError();
      else
        cuda::check(status, ("enabling peer access from GPU " + std::to_string(a) + " to GPU " +
                             std::to_string(b)).c_str());
    }
}

DeviceDatabase::~DeviceDatabase() = default;

std::uint64_t DeviceDatabase::bytes() const {
  std::uint64_t total = 0;
  for (std::uint64_t b : device_bytes()) total += b;
  return total;
}

std::vector<std::uint64_t> DeviceDatabase::device_bytes() const {
  std::vector<std::uint64_t> bytes(layout_.devices.size(), 0);
  for (std::size_t s = 0; s < shards_.size(); ++s)
    bytes[s / layout_.shards_per_gpu] += shards_[s].bytes();
  for (std::size_t d = 0; d < tables_.size(); ++d) bytes[d] += tables_[d].bytes();
  return bytes;
}

// Allocates the shards, converts and copies the arrays into them through a
// pool of pinned staging buffers (thread-safe: load()'s reading threads call
// locations() at once), then builds the lookups.
class IndexWriter {
 public:
  IndexWriter(const ShardLayout& layout, std::vector<std::uint32_t> window_base,
              std::span<const sketch::feature_t> features,
              std::span<const std::uint64_t> offsets)
      : window_base_(std::move(window_base)), devices_(layout.devices), idle_(staging_buffers()) {
    db_.cuts_ = cut_shards(features, offsets, layout);
    db_.layout_ = layout;
    db_.layout_.shards_per_gpu = unsigned(db_.cuts_.size() / layout.devices.size());
    const std::vector<int>& devices = db_.layout_.devices;
    for (std::size_t d = 0; d < devices.size(); ++d) {
      std::uint64_t needed = 0;
      std::size_t first = d * db_.layout_.shards_per_gpu, last = first + db_.layout_.shards_per_gpu;
      for (std::size_t s = first; s < last; ++s)
        needed += shard_device_bytes(db_.cuts_[s].end_feature - db_.cuts_[s].first_feature,
                                     db_.cuts_[s].end_location - db_.cuts_[s].first_location);
      cuda::check(cudaSetDevice(devices[d]), uploading);
      std::size_t free_bytes = 0, total_bytes = 0;
      cuda::check(cudaMemGetInfo(&free_bytes, &total_bytes), "querying free GPU memory");
      if (needed > free_bytes)
        throw std::runtime_error(
            "the database needs " + gib(needed) + " of GPU memory on GPU " +
            std::to_string(devices[d]) + " to query, but only " + gib(free_bytes) +
            " are free; use more GPUs (--gpus) or --device cpu");
      streams_.emplace_back();
    }
    for (std::size_t s = 0; s < db_.cuts_.size(); ++s) {
      const ShardCut& c = db_.cuts_[s];
      cuda::check(cudaSetDevice(c.device), uploading);
      db_.shards_.emplace_back(c.end_feature - c.first_feature, c.end_location - c.first_location);
    }
    staging_.resize(staging_buffers());
    for (std::size_t i = 0; i < staging_.size(); ++i) {
      staging_[i].buffer = cuda::pinned_buffer<char>(db::file_format::checksum_chunk_bytes);
      for (int device : devices) {
        cuda::check(cudaSetDevice(device), uploading);
        staging_[i].copied.emplace_back();
      }
      idle_.push(i);
    }
  }
  ~IndexWriter() {
    for (std::size_t d = 0; d < streams_.size(); ++d) {
      cudaSetDevice(devices_[d]);
      cudaStreamSynchronize(streams_[d]);
    }
  }

  // Locations [first, first + count) of the index, as global window ids into
  // their shards. Corrupt locations (load() fails then) become 0.
  void locations(std::uint64_t first, const sketch::Location* data, std::uint64_t count) {
    const std::uint32_t targets = std::uint32_t(window_base_.size() - 1);
    const std::uint64_t end = first + count;
    for (std::size_t s = 0; s < db_.cuts_.size() && first < end; ++s) {
      const ShardCut& c = db_.cuts_[s];
      if (c.end_location <= first) continue;
      const std::uint64_t piece_end = std::min(end, c.end_location);
      put(s, db_.shards_[s].locations() + (first - c.first_location), piece_end - first,
          [&](std::uint32_t* out, std::uint64_t at, std::uint64_t n) {
            const sketch::Location* l = data + (at - (end - count));
            for (std::uint64_t i = 0; i < n; ++i)
              out[i] = l[i].target < targets ? window_base_[l[i].target] + l[i].window : 0;
          }, first);
      first = piece_end;
    }
  }

  DeviceDatabase finish(std::span<const sketch::feature_t> features,
                        std::span<const std::uint64_t> offsets) {
    // Features and offsets in pieces of a staging buffer, on all cores.
    struct Piece {
      std::size_t shard;
      bool offsets;
      std::uint64_t first, count;  // positions in the index's arrays
    };
    std::vector<Piece> pieces;
    const std::uint64_t per = db::file_format::checksum_chunk_bytes / sizeof(std::uint32_t);
    for (std::size_t s = 0; s < db_.cuts_.size(); ++s) {
      const ShardCut& c = db_.cuts_[s];
      for (bool offs : {false, true}) {
        const std::uint64_t end = c.end_feature + (offs ? 1 : 0);
        for (std::uint64_t first = c.first_feature; first < end; first += per)
          pieces.push_back(Piece{s, offs, first, std::min(per, end - first)});
      }
    }
    host::parallel_for(pieces.size(), host_threads(), [&](std::size_t i) {
      const Piece& p = pieces[i];
      const ShardCut& c = db_.cuts_[p.shard];
      kernels::DeviceShard& shard = db_.shards_[p.shard];
      if (!p.offsets)
        put(p.shard, shard.features() + (p.first - c.first_feature), p.count,
            [&](std::uint32_t* out, std::uint64_t at, std::uint64_t n) {
              std::memcpy(out, features.data() + at, n * sizeof(std::uint32_t));
            }, p.first);
      else
        put(p.shard, shard.offsets() + (p.first - c.first_feature), p.count,
            [&](std::uint32_t* out, std::uint64_t at, std::uint64_t n) {
              for (std::uint64_t k = 0; k < n; ++k)
                out[k] = std::uint32_t(offsets[at + k] - c.first_location);
            }, p.first);
    });
    const std::vector<int>& devices = db_.layout_.devices;
    for (std::size_t s = 0; s < db_.cuts_.size(); ++s) {
      const std::size_t d = s / db_.layout_.shards_per_gpu;
      cuda::check(cudaSetDevice(devices[d]), uploading);
      cuda::check(cudaStreamSynchronize(streams_[d]), uploading);
      db_.shards_[s].build_lookup(streams_[d]);
    }
    // The table the kernels search: shard 0 (beginning at feature 0) and
    // every shard that holds features (an empty one after shard 0 is skipped:
    // its range is empty).
    std::vector<kernels::ShardView> views;
    std::vector<std::uint32_t> begins;
    for (std::size_t s = 0; s < db_.cuts_.size(); ++s) {
      if (s > 0 && db_.cuts_[s].end_feature == db_.cuts_[s].first_feature) continue;
      views.push_back(db_.shards_[s].view());
      begins.push_back(std::uint32_t(db_.cuts_[s].range.begin));
    }
    if (devices.size() > 1) enable_peer_access(devices);
    for (std::size_t d = 0; d < devices.size(); ++d) {
      cuda::check(cudaSetDevice(devices[d]), uploading);
      db_.tables_.emplace_back(views, begins, window_base_, streams_[d]);
    }
    cuda::check(cudaSetDevice(devices[0]), uploading);
    return std::move(db_);
  }

 private:
  // Elements [at, at + count) of an array go to `device` (of shard s), in
  // pieces of a staging buffer, each filled by fill(out, at, n).
  template <class Fill>
  void put(std::size_t s, std::uint32_t* device, std::uint64_t count, Fill fill,
           std::uint64_t at) {
    const std::size_t d = s / db_.layout_.shards_per_gpu;
    cuda::check(cudaSetDevice(db_.layout_.devices[d]), uploading);  // per reading thread
    std::size_t slot = 0;
    if (!idle_.pop(slot)) throw std::logic_error("IndexWriter: no staging buffers");
    Staging& st = staging_[slot];
    try {
      const std::uint64_t per = st.buffer.size() / sizeof(std::uint32_t);
      for (std::uint64_t done = 0; done < count;) {
        const std::uint64_t n = std::min(count - done, per);
        if (st.last >= 0) st.copied[std::size_t(st.last)].synchronize();  // its copy completed
        auto* out = reinterpret_cast<std::uint32_t*>(st.buffer.data());
        fill(out, at + done, n);
        cuda::check(cudaMemcpyAsync(device + done, out, n * sizeof(std::uint32_t),
                                    cudaMemcpyHostToDevice, streams_[d]),
                    uploading);
        st.copied[d].record(streams_[d]);
        st.last = int(d);
        done += n;
      }
    } catch (...) {
      idle_.push(slot);  // others may still wait for a buffer
      throw;
    }
    idle_.push(slot);
  }

  struct Staging {
    cuda::pinned_buffer<char> buffer;
    std::vector<cuda::event> copied;  // per device: the copy out of the buffer
    int last = -1;                    // the device it last went to
  };
  DeviceDatabase db_;
  std::vector<std::uint32_t> window_base_;
  std::vector<int> devices_;
  std::vector<cuda::stream> streams_;  // per device
  std::vector<Staging> staging_;
  host::Channel<std::size_t> idle_;  // staging buffers free to fill
};

DeviceDatabase upload_index(const db::Database& db, const ShardLayout& layout) {
  return upload_index(db.index, window_bases(db.targets), layout);
}

DeviceDatabase upload_index(const db::FeatureIndex& index,
                            std::span<const std::uint32_t> window_base,
                            const ShardLayout& layout) {
  IndexWriter writer(layout, std::vector<std::uint32_t>(window_base.begin(), window_base.end()),
                     index.features(), index.offsets());
  const std::uint64_t piece = std::uint64_t(1) << 18;
  const std::uint64_t count = index.location_count();
  host::parallel_for((count + piece - 1) / piece, host_threads(), [&](std::size_t i) {
    const std::uint64_t first = i * piece;
    writer.locations(first, index.locations().data() + first, std::min(piece, count - first));
  });
  return writer.finish(index.features(), index.offsets());
}

StreamingIndexUpload::StreamingIndexUpload(const ShardLayout& layout) : layout_(layout) {}

StreamingIndexUpload::~StreamingIndexUpload() = default;

void StreamingIndexUpload::targets(std::span<const db::Target> targets) {
  window_base_ = window_bases(targets);
}

void StreamingIndexUpload::sizes(std::uint64_t features, std::uint64_t locations) {
  features_ = features;
  locations_ = locations;
}

void StreamingIndexUpload::chunk(Array array, std::uint64_t begin, const void* data,
                                 std::size_t bytes) {
  const char* base = static_cast<const char*>(data) - begin;
  if (array == Array::features) {
    host_features_ = reinterpret_cast<const sketch::feature_t*>(base);
    return;
  }
  if (array == Array::offsets) {
    host_offsets_ = reinterpret_cast<const std::uint64_t*>(base);
    return;
  }
  if (begin % sizeof(sketch::Location) != 0 || bytes % sizeof(sketch::Location) != 0)
    throw std::logic_error("StreamingIndexUpload: a chunk of locations not in whole locations");
  // All features and offsets were read before the first locations: the shards are cut now.
  std::call_once(planned_, [&] {
    if (window_base_.empty() || !host_offsets_ || (features_ > 0 && !host_features_))
      throw std::logic_error("StreamingIndexUpload: locations before the targets and offsets");
    try {
      writer_ = std::make_unique<IndexWriter>(
          layout_, window_base_, std::span(host_features_, features_),
          std::span(host_offsets_, features_ + 1));
    } catch (const std::invalid_argument&) {
      // Offsets that are not an index's (load() will say so): nothing is
      // streamed, finish() is not reached.
    }
  });
  if (!writer_) return;
  writer_->locations(begin / sizeof(sketch::Location),
                     static_cast<const sketch::Location*>(data), bytes / sizeof(sketch::Location));
}

DeviceDatabase StreamingIndexUpload::finish(const db::Database& db) {
  const db::FeatureIndex& index = db.index;
  if (!writer_) return upload_index(db, layout_);  // no locations: nothing was streamed
  DeviceDatabase device = writer_->finish(index.features(), index.offsets());
  writer_.reset();
  return device;
}

}  // namespace metawarp::pipeline::gpu
