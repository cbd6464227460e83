#include "pipeline/query/part_hits.hpp"

#include <algorithm>

#include "metawarp/host/parallel_for.hpp"

namespace metawarp::pipeline {
namespace {

class CpuHitCollector final : public PartHitCollector {
 public:
  explicit CpuHitCollector(unsigned threads)
      : threads_(std::max(1u, threads)), scratch_(threads_) {}

  void use_part(const db::FeatureIndex& part, const db::IndexPart& where) override {
    part_ = &part;
    range_ = where.range;
    part.prepare_lookup();
  }

  void collect(std::span<const SketchedBatch> batches, std::span<BatchHits> out) override {
    host::parallel_for(batches.size(), threads_, [&](std::size_t b, unsigned w) {
      collect_batch(batches[b], out[b], scratch_[w]);
    });
  }

 private:
  struct Scratch {
    std::vector<std::uint64_t> in_range;  // positions of a read's features inside the part's range
    std::vector<sketch::feature_t> features;  // those features
    std::vector<std::span<const sketch::Location>> lists;
  };

  void collect_batch(const SketchedBatch& batch, BatchHits& hits, Scratch& s) const {
    for (std::size_t r = 0; r < batch.reads(); ++r) {
      // Features outside the part's range cannot be in it: no lookup (with
      // many parts, most features of a read are elsewhere).
      s.in_range.clear();
      s.features.clear();
      for (std::uint64_t i = batch.offsets[r]; i < batch.offsets[r + 1]; ++i)
        if (range_.contains(batch.features[i])) {
          s.in_range.push_back(i);
          s.features.push_back(batch.features[i]);
        }
      s.lists.resize(s.features.size());
      part_->find_many(s.features.data(), s.features.size(), s.lists.data());
      for (std::size_t j = 0; j < s.in_range.size(); ++j) {
        const auto& list = s.lists[j];
        if (list.empty()) continue;
        hits.list_start[s.in_range[j]] = hits.locations.size();
        hits.list_sizes[s.in_range[j]] = std::uint32_t(list.size());
        hits.locations.insert(hits.locations.end(), list.begin(), list.end());
      }
    }
  }

  unsigned threads_;
  std::vector<Scratch> scratch_;
  const db::FeatureIndex* part_ = nullptr;
  index::FeatureRange range_;
};

}  // namespace

void sketch_reads(const Classifier& classifier, std::span<const ReadView> reads,
                  SketchedBatch& out) {
  out.features.clear();
  out.positions.clear();
  out.offsets.assign(1, 0);
  out.shapes.clear();
  for (const ReadView& read : reads) {
    out.shapes.push_back(
        classifier.sketch_read(read.mate1, read.mate2, out.features, out.positions));
    out.offsets.push_back(out.features.size());
  }
}

void decide_reads(const Classifier& classifier, const SketchedBatch& batch, const BatchHits& hits,
                  std::span<ReadResult> results, ClassifierScratch& scratch,
                  std::vector<std::span<const sketch::Location>>& lists) {
  for (std::size_t r = 0; r < batch.reads(); ++r) {
    const std::uint64_t from = batch.offsets[r], to = batch.offsets[r + 1];
    lists.clear();
    for (std::uint64_t f = from; f < to; ++f) lists.push_back(hits.list(f));
    results[r] = classifier.decide_features(
        lists, std::span(batch.features).subspan(from, to - from),
        std::span(batch.positions).subspan(from, to - from), batch.shapes[r], scratch);
  }
}

std::unique_ptr<PartHitCollector> make_cpu_hit_collector(unsigned threads) {
  return std::make_unique<CpuHitCollector>(threads);
}

}  // namespace metawarp::pipeline
