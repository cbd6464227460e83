#include "pipeline/gpu/build_batches.hpp"

#include <algorithm>
#include <stdexcept>

#include "metawarp/cuda/error.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/sketch/sketch.hpp"

namespace metawarp::pipeline::gpu {
namespace {

// The most bases a piece carries beyond count * stride: a k-mer's tail and
// the context either side.
std::uint64_t piece_overhead(const sketch::SketchParams& params) {
  return params.k - 1 + 2 * sketch::context_kmers(params);
}

}  // namespace

void check_batch_size(std::uint64_t batch_bases, const sketch::SketchParams& params) {
  if (batch_bases < std::uint64_t(params.window) + params.k + 2 * sketch::context_kmers(params))
    throw std::runtime_error("--batch-size must hold at least one window and its context");
}

std::uint64_t max_batch_windows(std::uint64_t batch_bases, const sketch::SketchParams& params) {
  return batch_bases / params.stride() + max_batch_segments;
}

HostBatch::HostBatch(std::uint64_t batch_bases)
    : bases(batch_bases), segments(max_batch_segments) {}

unsigned copy_threads(unsigned threads) { return threads < 4 ? 0 : std::min(8u, threads / 4); }

void wait_for_copies(HostBatch& batch, double& waited) {
  host::Stopwatch clock;
  batch.copies->wait();
  waited += clock.lap();
}

std::uint64_t pack_windows(HostBatch& batch, const SharedTarget& target, std::uint64_t w0,
                           const sketch::SketchParams& params, host::CopyPool& copier) {
  const std::string& seq = *target.sequence;
  const std::uint64_t stride = params.stride();
  const std::uint64_t overhead = piece_overhead(params);
  const std::uint64_t room = batch.bases.size() - batch.used;
  const std::uint64_t fit = room >= overhead + stride ? (room - overhead) / stride : 0;
  if (fit == 0 || batch.segment_count == max_batch_segments) return w0;
  const std::uint64_t count = std::min(fit, target.windows - w0);
  const sketch::BaseRange bases = sketch::window_bases(seq.size(), w0, w0 + count, params);
  const std::uint64_t length = bases.end - bases.begin;
  copier.copy(*batch.copies, target.sequence, seq.data() + bases.begin,
              batch.bases.data() + batch.used, length);
  batch.segments[batch.segment_count++] = kernels::BatchSegment{
      batch.used, bases.begin, seq.size(), batch.windows, target.target, sketch::window_id_t(w0)};
  batch.used += length;
  batch.windows += count;
  return w0 + count;
}

DeviceBatch::DeviceBatch(std::uint64_t batch_bases)
    : bases(batch_bases), segments(max_batch_segments) {}

kernels::BatchView DeviceBatch::upload(const HostBatch& host, cudaStream_t stream) {
  bases.copy_from_host(host.bases.data(), host.used, stream);
  segments.copy_from_host(host.segments.data(), host.segment_count, stream);
  return kernels::BatchView{bases.data(), segments.data(), host.segment_count, host.windows};
}

SpillBuffers::SpillBuffers(cudaStream_t stream) { count_.fill_bytes(0, stream); }

kernels::SentinelSpill SpillBuffers::view() const {
  return kernels::SentinelSpill{count_.data(), features_.data(), locations_.data(), capacity};
}

std::vector<db::Entry> SpillBuffers::read(cudaStream_t stream) const {
  std::uint64_t count = 0;
  count_.copy_to_host(&count, 1, stream);
  cuda::check(cudaStreamSynchronize(stream), "reading the sentinel spill count");
  if (count > capacity)
    throw std::runtime_error("too many features equal to table sentinels (corrupt input?)");
  std::vector<sketch::feature_t> f(count);
  std::vector<std::uint64_t> l(count);
  features_.copy_to_host(f.data(), count, stream);
  locations_.copy_to_host(l.data(), count, stream);
  cuda::check(cudaStreamSynchronize(stream), "reading the sentinel spill");
  std::vector<db::Entry> out;
  for (std::uint64_t i = 0; i < count; ++i)
    out.push_back(db::Entry{f[i], sketch::Location::unpack(l[i])});
  return out;
}

}  // namespace metawarp::pipeline::gpu
