#pragma once
// A chunk of reads on the GPU from its placed hits to its results, shared by
// the resident engine's lanes (gpu_query_engine.cpp) and the streamed
// partitions' chunks (gpu_hit_collector.cpp): once a chunk's hits are
// counted and placed in an index (the whole database's, or the lists kept
// from every part: kernels/kept_hits.hpp), the same kernels gather and sort
// each read's hits, score its candidates, find the matched bases and the
// features' taxa, and the same host code (Classifier::finish) fills each
// read's result. What bases a chunk holds, and how its reads are packed,
// is also one function for both.
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/query_chunk.hpp"
#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/event.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "pipeline/gpu/selected_gpu.hpp"
#include "pipeline/query/classifier.hpp"
#include "pipeline/query/gpu_query.hpp"

namespace metawarp::pipeline::gpu {

// A chunk never holds more reads than this (sizes the per-read arrays).
inline constexpr std::size_t max_chunk_reads = std::size_t(1) << 20;

// The reads [0, end) of `reads` that make the next chunk: at most
// max_chunk_reads, their bases at most `chunk_bases` (one read at least);
// `bases` is set to theirs.
std::size_t chunk_end(std::span<const ReadView> reads, std::uint64_t chunk_bases,
                      std::uint64_t& bases);

// Both mates' bases of `reads` into `bases` and their sequences (2 per read
// and the end: kernels::QuerySequence) into `sequences`; read_windows[r] the
// windows read r sketches. Returns the chunk's windows.
std::uint64_t pack_reads(std::span<const ReadView> reads, const sketch::SketchParams& params,
                         char* bases, kernels::QuerySequence* sequences,
                         std::vector<std::uint32_t>& read_windows);

// Seconds between two completed events on one stream; 0 where the driver
// or a tool gives no event timing (timing is best effort: it must not stop
// the classification).
double seconds_between(const cuda::event& from, const cuda::event& to);

// The taxonomy arrays classify::feature_taxon_of needs, on one GPU.
struct DeviceTaxa {
  cuda::device_buffer<classify::taxon_node_t> target_node, parent;
  cuda::device_buffer<std::uint32_t> depth;
  classify::TaxonTree tree() const { return {parent.data(), depth.data()}; }
};

// `taxa` on each of `devices`; leaves the first selected.
std::vector<DeviceTaxa> upload_taxa(const std::vector<SelectedGpu>& devices,
                                    const TaxonArrays& taxa);

// Whether the evidence is taken from the feature taxa computed on the device
// (not with --report-minimizer-data, which needs each feature's hash too: the
// host looks the read up again, Classifier::look_up).
bool taxa_from_device(const ClassifierOptions& options);

// A chunk's buffers from the gather on (one chunk at a time).
class ChunkDecider {
 public:
  // After the chunk's hits are placed in `index` (chunk.window_offsets,
  // read_offsets; `total` hits; `counted` recorded on `stream` then): gathers,
  // sorts and scores them, the matched bases and (`taxa`: with the evidence
  // from the device) the features' taxa, and downloads what finish() needs;
  // returns when it is on the host. Adds the GPU stages' times to `stats`.
  void decide(const kernels::QueryChunkView& chunk, std::uint64_t total,
              const kernels::DeviceIndexView& index, const Classifier& classifier,
              const DeviceTaxa* taxa, const cuda::event& counted, cudaStream_t stream,
              GpuQueryStats& stats);

  // results[r] for the chunk's read r (Classifier::finish), from what
  // decide() downloaded; `sequences` and `read_windows` as pack_reads made
  // them.
  void finish(std::span<const ReadView> reads, std::span<ReadResult> results,
              const Classifier& classifier, const kernels::QuerySequence* sequences,
              std::span<const std::uint32_t> read_windows);

 private:
  // Read r's feature taxa, in the sketch's order; returns how many are mate 1's.
  std::uint32_t read_taxa(std::size_t r, const kernels::QuerySequence* sequences,
                          std::uint32_t sketch_size, std::vector<classify::taxon_node_t>& taxa) const;

  cuda::event sorted_, scored_, downloaded_;
  cuda::device_buffer<std::uint64_t> large_read_ends_;
  cuda::device_buffer<std::uint32_t> keys_;
  cuda::device_buffer<std::uint32_t> keys_sorted_;
  cuda::device_buffer<sketch::Location> hits_;
  kernels::CubScratch scratch_;
  cuda::device_buffer<classify::Candidate> top_;
  cuda::device_buffer<std::uint32_t> top_counts_;
  cuda::device_buffer<std::uint32_t> hit_counts_;
  cuda::device_buffer<std::uint32_t> matched_positions_;
  cuda::device_buffer<std::uint32_t> matched_;
  cuda::device_buffer<classify::taxon_node_t> feature_taxa_;
  cuda::pinned_buffer<classify::Candidate> host_top_;
  cuda::pinned_buffer<std::uint32_t> host_top_counts_;
  cuda::pinned_buffer<std::uint32_t> host_hit_counts_;
  cuda::pinned_buffer<std::uint32_t> host_matched_;
  cuda::pinned_buffer<classify::taxon_node_t> host_taxa_;
  cuda::pinned_buffer<std::uint8_t> host_window_features_;
  bool device_taxa_ = false;  // the last decide()'s
  std::uint32_t sketch_size_ = 0;
  ReadStage evidence_stage_;  // a read's lists for its evidence, on the host
  std::vector<classify::taxon_node_t> read_taxa_;
};

}  // namespace metawarp::pipeline::gpu
