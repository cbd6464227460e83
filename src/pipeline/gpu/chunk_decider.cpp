#include "pipeline/gpu/chunk_decider.hpp"

#include <algorithm>
#include <cstring>

#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/grow.hpp"
#include "metawarp/cuda/stream.hpp"
#include "metawarp/host/clock.hpp"

namespace metawarp::pipeline::gpu {

using cuda::grow_to;
using kernels::QuerySequence;

std::size_t chunk_end(std::span<const ReadView> reads, std::uint64_t chunk_bases,
                      std::uint64_t& bases) {
  std::size_t last = 0;
  bases = 0;
  while (last < reads.size() && last < max_chunk_reads) {
    const std::uint64_t b = reads[last].mate1.size() + reads[last].mate2.size();
    if (last > 0 && bases + b > chunk_bases) break;
    bases += b;
    ++last;
  }
  return last;
}

std::uint64_t pack_reads(std::span<const ReadView> reads, const sketch::SketchParams& p,
                         char* bases, QuerySequence* seqs,
                         std::vector<std::uint32_t>& read_windows) {
  read_windows.resize(reads.size());
  std::uint64_t offset = 0, windows = 0;
  for (std::size_t r = 0; r < reads.size(); ++r) {
    std::uint32_t count_of_read = 0;
    int m = 0;
    for (std::string_view mate : {reads[r].mate1, reads[r].mate2}) {
      if (!mate.empty()) std::memcpy(bases + offset, mate.data(), mate.size());
      seqs[2 * r + m++] = QuerySequence{offset, mate.size(), windows};
      const std::uint64_t count = sketch::window_count(mate.size(), p);
      windows += count;
      count_of_read += std::uint32_t(count);  // as Classifier::sketch counts them
      offset += mate.size();
    }
    read_windows[r] = count_of_read;
  }
  seqs[2 * reads.size()] = QuerySequence{offset, 0, windows};
  return windows;
}

double seconds_between(const cuda::event& from, const cuda::event& to) {
  float ms = 0;
  if (cudaEventElapsedTime(&ms, from.get(), to.get()) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0.0;
  }
  return double(ms) / 1e3;
}

std::vector<DeviceTaxa> upload_taxa(const std::vector<SelectedGpu>& devices,
                                    const TaxonArrays& taxa) {
  std::vector<DeviceTaxa> out(devices.size());
  for (std::size_t d = 0; d < devices.size(); ++d) {
    devices[d].select();
    cuda::stream stream;
    out[d].target_node = cuda::copy_to_device(std::span(taxa.target_node), stream);
    out[d].parent = cuda::copy_to_device(std::span(taxa.parent), stream);
    out[d].depth = cuda::copy_to_device(std::span(taxa.depth), stream);
    cuda::check(cudaStreamSynchronize(stream), "uploading the taxonomy");
  }
  devices[0].select();
  return out;
}

bool taxa_from_device(const ClassifierOptions& options) {
  return options.needs_evidence() && !options.found_features;
}

void ChunkDecider::decide(const kernels::QueryChunkView& chunk, std::uint64_t total,
                          const kernels::DeviceIndexView& index, const Classifier& classifier,
                          const DeviceTaxa* taxa, const cuda::event& counted,
                          cudaStream_t stream, GpuQueryStats& stats) {
  const std::uint32_t n = chunk.reads;
  const sketch::SketchParams& p = classifier.sketch_params();
  const ClassifierOptions& options = classifier.options();
  const std::uint32_t max_candidates = options.max_candidates;
  const bool match = classifier.match_rule();
  device_taxa_ = taxa != nullptr;
  sketch_size_ = p.sketch_size;
  const std::uint64_t slots = chunk.windows * p.sketch_size;
  grow_to(large_read_ends_, n);
  grow_to(keys_, total);
  grow_to(keys_sorted_, total);
  grow_to(hits_, total);
  grow_to(top_, std::uint64_t(n) * max_candidates);
  grow_to(top_counts_, n);
  grow_to(hit_counts_, n);
  grow_to(host_top_, std::uint64_t(n) * max_candidates);
  grow_to(host_top_counts_, n);
  grow_to(host_hit_counts_, n);
  if (match) {
    grow_to(matched_positions_, slots);
    grow_to(matched_, n);
    grow_to(host_matched_, n);
  }
  if (device_taxa_) {
    grow_to(feature_taxa_, slots);
    grow_to(host_taxa_, slots);
    grow_to(host_window_features_, chunk.windows);
  }

  const kernels::CandidateParams cp{p.stride(), options.insert_size, max_candidates};
  kernels::gather_sorted_hits(chunk, p.sketch_size, index, cp, total, keys_.data(),
                              keys_sorted_.data(), large_read_ends_.data(), hits_.data(),
                              scratch_, stream);
  sorted_.record(stream);
  kernels::score_candidates(chunk, hits_.data(), cp, top_.data(), top_counts_.data(),
                            hit_counts_.data(), stream);
  if (match)
    kernels::matched_bases(chunk, p.sketch_size, p.k, index, cp, top_.data(), top_counts_.data(),
                           matched_positions_.data(), matched_.data(), stream);
  if (device_taxa_)
    kernels::feature_taxa(chunk, p.sketch_size, index, taxa->target_node.data(), taxa->tree(),
                          feature_taxa_.data(), stream);
  scored_.record(stream);
  top_.copy_to_host(host_top_.data(), std::uint64_t(n) * max_candidates, stream);
  top_counts_.copy_to_host(host_top_counts_.data(), n, stream);
  hit_counts_.copy_to_host(host_hit_counts_.data(), n, stream);
  if (match) matched_.copy_to_host(host_matched_.data(), n, stream);
  if (device_taxa_) {
    feature_taxa_.copy_to_host(host_taxa_.data(), slots, stream);
    cuda::check(cudaMemcpyAsync(host_window_features_.data(), chunk.window_features,
                                chunk.windows, cudaMemcpyDeviceToHost, stream),
                "downloading the windows' feature counts");
  }
  downloaded_.record(stream);
  cuda::check(cudaStreamSynchronize(stream), "running the GPU query kernels");

  stats.gather_sort_seconds += seconds_between(counted, sorted_);
  stats.candidates_seconds += seconds_between(sorted_, scored_);
  stats.copy_out_seconds += seconds_between(scored_, downloaded_);
}

void ChunkDecider::finish(std::span<const ReadView> reads, std::span<ReadResult> results,
                          const Classifier& classifier, const QuerySequence* sequences,
                          std::span<const std::uint32_t> read_windows) {
  const std::uint32_t max_candidates = classifier.options().max_candidates;
  const bool evidence = classifier.options().needs_evidence();
  for (std::size_t r = 0; r < reads.size(); ++r) {
    // The best candidate's matched bases: the device's (kernels::matched_bases).
    const ReadDecision decision{
        read_windows[r], host_hit_counts_[r],
        std::span<const classify::Candidate>(host_top_.data() + r * max_candidates,
                                             host_top_counts_[r]),
        !reads[r].mate2.empty(), reads[r].mate1.size() + reads[r].mate2.size(),
        classifier.match_rule() ? host_matched_[r] : 0};
    // The evidence column and --confidence need each feature's taxon: from
    // the device, which computed it over the list it found; with
    // --report-minimizer-data each feature is looked up again by the CPU
    // classifier's own code, which also gives the features' hashes.
    FeatureEvidence features;
    if (evidence && device_taxa_) {
      features.mate1_features = read_taxa(r, sequences, sketch_size_, read_taxa_);
      features.taxa = read_taxa_;
    } else if (evidence) {
      classifier.look_up(reads[r].mate1, reads[r].mate2, evidence_stage_);
      features = {evidence_stage_.features, evidence_stage_.lists, {},
                  evidence_stage_.shape.mate1_features};
    }
    classifier.finish(decision, features, results[r]);
  }
}

std::uint32_t ChunkDecider::read_taxa(std::size_t r, const QuerySequence* seqs,
                                      std::uint32_t s,
                                      std::vector<classify::taxon_node_t>& taxa) const {
  const std::uint64_t first = seqs[2 * r].window_prefix, mate2 = seqs[2 * r + 1].window_prefix,
                      end = seqs[2 * r + 2].window_prefix;
  taxa.clear();
  std::uint32_t mate1_features = 0;
  for (std::uint64_t w = first; w < end; ++w) {
    if (w == mate2) mate1_features = std::uint32_t(taxa.size());
    const classify::taxon_node_t* window = host_taxa_.data() + w * s;
    taxa.insert(taxa.end(), window, window + host_window_features_[w]);
  }
  return mate2 == end ? std::uint32_t(taxa.size()) : mate1_features;
}

}  // namespace metawarp::pipeline::gpu
