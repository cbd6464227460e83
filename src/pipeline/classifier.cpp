#include "pipeline/classifier.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "metawarp/sketch/sketch.hpp"

namespace metawarp::pipeline {

static_assert(classify::lineage_levels == taxonomy::canonical_rank_count,
              "classify::TargetLineage mirrors taxonomy::RankedLineage");

std::vector<classify::TargetLineage> target_lineages(const db::Database& db) {
  std::vector<classify::TargetLineage> result(db.targets.size());
  const bool has_root = db.taxonomy.find(taxonomy::root_taxon) != nullptr;
  for (std::size_t t = 0; t < db.targets.size(); ++t) {
    const taxonomy::taxid_t taxid = db.taxonomy.resolve(db.targets[t].taxid);
    if (taxid == taxonomy::no_taxon) continue;  // unmapped: never classifies
    const taxonomy::RankedLineage ranked = db.taxonomy.ranked_lineage(taxid);
    classify::TargetLineage& lineage = result[t];
    for (std::size_t l = 0; l < classify::lineage_levels; ++l) lineage.ids[l] = ranked.ids[l];
    lineage.ids[classify::level_sequence] = taxid;
    // Every lineage meets at the root, even when the root node has no rank.
    if (has_root && lineage.ids[classify::level_root] == taxonomy::no_taxon)
      lineage.ids[classify::level_root] = taxonomy::root_taxon;
  }
  return result;
}

Classifier::Classifier(const db::Database& db, const ClassifierOptions& options)
    : db_(db), options_(options), lineages_(target_lineages(db)) {
  if (options.max_candidates < 1 || options.max_candidates > classify::max_candidates_limit)
    throw std::invalid_argument("--max-candidates must be between 1 and " +
                                std::to_string(classify::max_candidates_limit));
  if (options.lowest > options.highest)
    throw std::invalid_argument("--lowest rank '" +
                                std::string(taxonomy::canonical_rank_name(options.lowest)) +
                                "' is above --highest rank '" +
                                std::string(taxonomy::canonical_rank_name(options.highest)) + "'");
  const std::uint32_t s = db.params.sketch.sketch_size;
  single_params_.hit_min =
      options.hit_min != 0 ? options.hit_min : std::max<std::uint32_t>(1, s / 3);
  single_params_.hit_diff = options.hit_diff;
  single_params_.lowest = std::uint32_t(options.lowest);
  single_params_.highest = std::uint32_t(options.highest);
  pair_params_ = single_params_;
  pair_params_.hit_min =
      options.hit_min != 0 ? options.hit_min : std::max<std::uint32_t>(1, s / 2);
}

void Classifier::gather(std::string_view seq, ClassifierScratch& scratch,
                        std::uint32_t& windows) const {
  const sketch::SketchParams& p = db_.params.sketch;
  const std::uint64_t count = sketch::window_count(seq.size(), p);
  sketch::feature_t features[sketch::max_sketch_size];
  for (std::uint64_t w = 0; w < count; ++w) {
    const std::uint32_t n = sketch::sketch_window(seq.data(), seq.size(), w, p, features);
    for (std::uint32_t i = 0; i < n; ++i) {
      const auto locations = db_.index.find(features[i]);
      scratch.hits.insert(scratch.hits.end(), locations.begin(), locations.end());
    }
  }
  windows += std::uint32_t(count);
}

ReadResult Classifier::classify(std::string_view mate1, std::string_view mate2,
                                ClassifierScratch& scratch) const {
  ReadResult result;
  scratch.hits.clear();
  gather(mate1, scratch, result.windows);
  gather(mate2, scratch, result.windows);
  std::sort(scratch.hits.begin(), scratch.hits.end());
  // A read with more hits than fit in 32 bits does not exist in practice;
  // clamp rather than wrap.
  const std::uint32_t n = std::uint32_t(std::min<std::size_t>(scratch.hits.size(), 0xffffffffu));
  result.hits = n;

  std::uint64_t fragment = mate1.size() + mate2.size();
  if (!mate2.empty()) fragment = std::max(fragment, options_.insert_size);
  const std::uint32_t span = classify::window_span(fragment, db_.params.sketch.stride());
  result.candidate_count =
      classify::top_candidates(scratch.hits.data(), n, span, result.top, options_.max_candidates);
  result.assignment =
      classify::assign(result.top, result.candidate_count, lineages_.data(),
                       params(/*paired=*/!mate2.empty()));
  return result;
}

std::optional<taxonomy::CanonicalRank> parse_canonical_rank(std::string_view name) {
  if (name == "superkingdom") return taxonomy::CanonicalRank::domain;
  for (std::size_t r = 0; r < taxonomy::canonical_rank_count; ++r) {
    const auto rank = taxonomy::CanonicalRank(r);
    if (taxonomy::canonical_rank_name(rank) == name) return rank;
  }
  return std::nullopt;
}

}  // namespace metawarp::pipeline
