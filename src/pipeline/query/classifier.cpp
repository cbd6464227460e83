#include "pipeline/query/classifier.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "db/reference_bases.hpp"
#include "metawarp/sketch/host.hpp"
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

classify::taxon_node_t TaxonArrays::node_of(const taxonomy::Taxonomy& taxonomy,
                                            taxonomy::taxid_t id) const {
  const taxonomy::taxid_t resolved = taxonomy.resolve(id);
  if (resolved == taxonomy::no_taxon) return classify::no_node;
  const auto at = std::lower_bound(taxid.begin() + 1, taxid.end(), resolved);
  return at != taxid.end() && *at == resolved ? classify::taxon_node_t(at - taxid.begin())
                                              : classify::no_node;
}

TaxonArrays taxon_arrays(const db::Database& db) {
  TaxonArrays a;
  const std::vector<taxonomy::Node>& nodes = db.taxonomy.nodes();  // sorted by id
  const std::size_t n = nodes.size();
  a.taxid.assign(n + 1, taxonomy::no_taxon);
  for (std::size_t i = 0; i < n; ++i) a.taxid[i + 1] = nodes[i].id;
  a.parent.assign(n + 1, classify::no_node);
  for (std::size_t i = 0; i < n; ++i) a.parent[i + 1] = a.node_of(db.taxonomy, nodes[i].parent);
  // Depths: walk up to a node whose depth is known (the taxonomy has no
  // cycles, checked when it was built), then fill the path on the way back.
  constexpr std::uint32_t unknown = 0xffffffffu;
  a.depth.assign(n + 1, unknown);
  a.depth[0] = 0;
  std::vector<classify::taxon_node_t> path;
  for (classify::taxon_node_t v = 1; v <= n; ++v) {
    path.clear();
    classify::taxon_node_t u = v;
    while (a.depth[u] == unknown && a.parent[u] != u && a.parent[u] != classify::no_node) {
      path.push_back(u);
      u = a.parent[u];
    }
    if (a.depth[u] == unknown) a.depth[u] = 0;  // a root
    for (auto it = path.rbegin(); it != path.rend(); ++it)
      a.depth[*it] = a.depth[a.parent[*it]] + 1;
  }
  a.target_node.resize(db.targets.size());
  for (std::size_t t = 0; t < db.targets.size(); ++t)
    a.target_node[t] = a.node_of(db.taxonomy, db.targets[t].taxid);
  return a;
}

void check_classifier_options(const ClassifierOptions& options) {
  if (options.confidence_millionths > classify::confidence_scale)
    throw std::invalid_argument("--confidence must be between 0 and 1");
  if (options.max_candidates < 1 || options.max_candidates > classify::max_candidates_limit)
    throw std::invalid_argument("--max-candidates must be between 1 and " +
                                std::to_string(classify::max_candidates_limit));
  if (options.lowest > options.highest)
    throw std::invalid_argument("--lowest rank '" +
                                std::string(taxonomy::canonical_rank_name(options.lowest)) +
                                "' is above --highest rank '" +
                                std::string(taxonomy::canonical_rank_name(options.highest)) + "'");
}

Classifier::Classifier(const db::Database& db, const ClassifierOptions& options)
    : db_(db), options_(options), lineages_(target_lineages(db)) {
  check_classifier_options(options);
  if (options.needs_evidence()) {
    taxa_ = taxon_arrays(db);
    node_lineages_.resize(lineages_.size());
    for (std::size_t t = 0; t < lineages_.size(); ++t)
      for (std::size_t l = 0; l < classify::lineage_levels; ++l)
        node_lineages_[t].ids[l] = taxa_.node_of(db.taxonomy, lineages_[t].ids[l]);
  }
  const sketch::SketchParams& p = db.params.sketch;
  single_params_.hit_min = options.hit_min != 0 ? options.hit_min : auto_hit_min(p, false);
  single_params_.hit_diff =
      options.hit_diff != auto_hit_diff ? options.hit_diff : auto_hit_diff_of(p);
  single_params_.lowest = std::uint32_t(options.lowest);
  single_params_.highest = std::uint32_t(options.highest);
  pair_params_ = single_params_;
  pair_params_.hit_min = options.hit_min != 0 ? options.hit_min : auto_hit_min(p, true);
  match_rule_ = p.sampling != sketch::Sampling::window;
  reference_bases_ = db::reference_bases(db.targets);
  if (match_rule_ && options.match_min == 0) {
    needed_by_length_.resize(1024);
    for (std::uint32_t bases = 0; bases < needed_by_length_.size(); ++bases)
      needed_by_length_[bases] = classify::min_matched_bases(bases, reference_bases_,
                                                             classify::chance_calls_one_in);
  }
}

std::uint32_t auto_hit_min(const sketch::SketchParams& p, bool paired) {
  if (p.sampling != sketch::Sampling::window) return 2;
  return std::max<std::uint32_t>(1, paired ? p.sketch_size / 2 : p.sketch_size / 3);
}

std::uint32_t auto_hit_diff_of(const sketch::SketchParams& p) {
  return p.sampling == sketch::Sampling::window ? 3 : 0;
}

std::uint32_t Classifier::sketch(std::string_view seq, std::uint32_t offset,
                                 std::vector<sketch::feature_t>& features,
                                 std::vector<std::uint32_t>& positions) const {
  const sketch::SketchParams& p = db_.params.sketch;
  const std::uint64_t count = sketch::window_count(seq.size(), p);
  std::size_t size = features.size();
  features.resize(size + count * p.sketch_size);
  positions.resize(size + count * p.sketch_size, 0);
  for (std::uint64_t w = 0; w < count; ++w) {
    sketch::feature_t* out = features.data() + size;
    std::uint32_t n = 0;
    if (match_rule_) {
      std::uint32_t* at = positions.data() + size;
      n = sketch::host_sketch_window_positions(seq.data(), seq.size(), w, p, out, at);
      for (std::uint32_t j = 0; j < n; ++j) at[j] += offset;
    } else {
      n = sketch::host_sketch_window(seq.data(), seq.size(), w, p, out);
    }
    size += n;
  }
  features.resize(size);
  positions.resize(size);
  return std::uint32_t(count);
}

namespace {

// Sorts short ranges by insertion (most per-target groups of a read are a
// few hits), longer ones with std::sort.
template <class T>
void small_sort(T* first, T* last) {
  if (last - first > 24) {
    std::sort(first, last);
    return;
  }
  for (T* i = first + 1; i < last; ++i) {
    const T value = *i;
    T* j = i;
    for (; j > first && value < j[-1]; --j) *j = j[-1];
    *j = value;
  }
}

// Sorts the windows of one target's group. The group of the read's own
// target is long (every feature hits it) but spans few windows, so counting
// the windows beats std::sort there.
void sort_windows(sketch::window_id_t* first, sketch::window_id_t* last,
                  std::vector<std::uint32_t>& counts) {
  const std::size_t n = std::size_t(last - first);
  if (n <= 24) {
    small_sort(first, last);
    return;
  }
  const auto [low, high] = std::minmax_element(first, last);
  const sketch::window_id_t min = *low;
  const std::uint64_t values = std::uint64_t(*high - min) + 1;
  if (values > 2 * n) {
    std::sort(first, last);
    return;
  }
  counts.assign(values, 0);
  for (const sketch::window_id_t* w = first; w < last; ++w) ++counts[*w - min];
  sketch::window_id_t* out = first;
  for (std::uint32_t v = 0; v < values; ++v)
    for (std::uint32_t c = counts[v]; c > 0; --c) *out++ = min + v;
}

}  // namespace

// The same order std::sort gives, in O(hits): a counting sort by target over
// the targets this read hit, then each target's (short) group by window.
void Classifier::gather_sorted_hits(std::span<const std::span<const sketch::Location>> lists,
                                    std::uint32_t span, ClassifierScratch& scratch) const {
  std::vector<std::uint32_t>& slots = scratch.target_slots;
  std::vector<sketch::target_id_t>& targets = scratch.targets_hit;
  targets.clear();
  std::size_t total = 0;
  for (const auto& list : lists)
    for (std::size_t i = 0; i < list.size(); ++i) {
      const sketch::Location& loc = list[i];
      if (i > 0 && classify::repeats_within_span(list[i - 1], loc, span)) continue;
      ++total;
      if (loc.target >= slots.size()) slots.resize(std::size_t(loc.target) + 1, 0);
      if (slots[loc.target]++ == 0) targets.push_back(loc.target);
    }
  small_sort(targets.data(), targets.data() + targets.size());
  // slots[t]: write position of target t's group.
  std::uint32_t position = 0;
  for (const sketch::target_id_t t : targets) {
    const std::uint32_t count = slots[t];
    slots[t] = position;
    position += count;
  }
  // Group the windows by target (the target is implied by the group), sort
  // each group, then write the (target, window) hits.
  scratch.windows.resize(total);
  sketch::window_id_t* windows = scratch.windows.data();
  for (const auto& list : lists)
    for (std::size_t i = 0; i < list.size(); ++i)
      if (i == 0 || !classify::repeats_within_span(list[i - 1], list[i], span))
        windows[slots[list[i].target]++] = list[i].window;
  scratch.hits.resize(total);
  sketch::Location* hits = scratch.hits.data();
  // Now slots[t] is the end of t's group; reset it to zero for the next read.
  std::uint32_t begin = 0;
  for (const sketch::target_id_t t : targets) {
    const std::uint32_t end = slots[t];
    sort_windows(windows + begin, windows + end, scratch.window_counts);
    for (std::uint32_t i = begin; i < end; ++i) hits[i] = sketch::Location{t, windows[i]};
    slots[t] = 0;
    begin = end;
  }
}

ReadShape Classifier::sketch_read(std::string_view mate1, std::string_view mate2,
                                  std::vector<sketch::feature_t>& features,
                                  std::vector<std::uint32_t>& positions) const {
  ReadShape shape;
  const std::size_t before = features.size();
  shape.windows = sketch(mate1, 0, features, positions);
  shape.mate1_features = std::uint32_t(features.size() - before);
  shape.windows += sketch(mate2, std::uint32_t(mate1.size()), features, positions);
  shape.bases = mate1.size() + mate2.size();
  shape.span = classify::read_window_span(mate1.size(), mate2.size(), options_.insert_size,
                                          db_.params.sketch.stride());
  shape.paired = !mate2.empty();
  return shape;
}

void Classifier::begin_read(std::string_view mate1, std::string_view mate2,
                            ReadStage& stage) const {
  stage.features.clear();
  stage.positions.clear();
  stage.shape = sketch_read(mate1, mate2, stage.features, stage.positions);
  for (const sketch::feature_t f : stage.features) db_.index.prefetch(f);
}

void Classifier::probe_read(ReadStage& stage) const {
  stage.handles.resize(stage.features.size());
  for (std::size_t i = 0; i < stage.features.size(); ++i)
    stage.handles[i] = db_.index.probe(stage.features[i]);
}

void Classifier::resolve_read(ReadStage& stage) const {
  stage.lists.resize(stage.handles.size());
  for (std::size_t i = 0; i < stage.handles.size(); ++i)
    stage.lists[i] = db_.index.list(stage.handles[i]);
}

ReadResult Classifier::finish_read(const ReadStage& stage, ClassifierScratch& scratch) const {
  return decide_features(stage.lists, stage.features, stage.positions, stage.shape, scratch);
}

void Classifier::look_up(std::string_view mate1, std::string_view mate2, ReadStage& stage) const {
  begin_read(mate1, mate2, stage);
  probe_read(stage);
  resolve_read(stage);
}

template <class TaxonOf>
void Classifier::evidence(std::size_t count, TaxonOf taxon_of,
                          std::span<const sketch::feature_t> features,
                          std::uint32_t mate1_features, bool paired, ReadResult& result) const {
  // Runs of equal feature taxon (taxon nodes first), a run never crossing
  // the mates' border.
  std::vector<classify::EvidenceRun>& runs = result.evidence;
  runs.clear();
  result.mate1_runs = 0;
  result.found.clear();
  const classify::TaxonTree tree = taxa_.tree();
  std::uint64_t in_database = 0;  // features with a feature taxon
  for (std::size_t i = 0; i < count; ++i) {
    if (i == mate1_features) result.mate1_runs = std::uint32_t(runs.size());
    const classify::taxon_node_t node = taxon_of(i);
    in_database += node != classify::no_node;
    if (options_.found_features && node != classify::no_node)
      result.found.emplace_back(features[i], taxa_.taxid[node]);
    if (!runs.empty() && runs.back().taxon == node && i != mate1_features)
      ++runs.back().count;
    else
      runs.push_back(classify::EvidenceRun{node, 1});
  }
  if (count <= mate1_features) result.mate1_runs = std::uint32_t(runs.size());
  classify::Assignment& a = result.assignment;
  if (options_.confidence_millionths != 0 && a.taxid != classify::unclassified_taxon) {
    const sketch::target_id_t best = result.top[0].target;
    a.taxid = classify::confident_taxon(a.taxid, lineages_[best], node_lineages_[best],
                                        runs.data(), std::uint32_t(runs.size()),
                                        options_.confidence_millionths, tree,
                                        params(paired));
  }
  if (in_database < options_.minimum_hit_groups) a.taxid = classify::unclassified_taxon;
  for (classify::EvidenceRun& run : runs) run.taxon = taxa_.taxid[run.taxon];
}

ReadDecision Classifier::decide(std::span<const std::span<const sketch::Location>> lists,
                                const ReadShape& shape, ClassifierScratch& scratch,
                                classify::Candidate* top) const {
  gather_sorted_hits(lists, shape.span, scratch);
  // A read with more hits than fit in 32 bits does not exist in practice;
  // clamp rather than wrap.
  const std::uint32_t n = std::uint32_t(std::min<std::size_t>(scratch.hits.size(), 0xffffffffu));
  const std::uint32_t count = classify::top_candidates(scratch.hits.data(), n, shape.span, top,
                                                      options_.max_candidates);
  return {shape.windows, n, std::span<const classify::Candidate>(top, count), shape.paired,
          shape.bases};
}

std::uint32_t Classifier::matched_bases(std::span<const std::span<const sketch::Location>> lists,
                                        std::span<const std::uint32_t> positions,
                                        const classify::Candidate& best,
                                        ClassifierScratch& scratch) const {
  if (!match_rule_) return 0;
  std::vector<std::uint32_t>& matched = scratch.matched_positions;
  matched.clear();
  for (std::size_t i = 0; i < lists.size(); ++i)
    if (classify::list_meets(lists[i].data(), std::uint32_t(lists[i].size()), best.target,
                             best.first_window, best.last_window))
      matched.push_back(positions[i]);
  small_sort(matched.data(), matched.data() + matched.size());
  const std::uint64_t covered = classify::union_length(
      matched.data(), std::uint32_t(matched.size()), db_.params.sketch.k);
  return std::uint32_t(std::min<std::uint64_t>(covered, 0xffffffffu));
}

std::uint32_t Classifier::needed_bases(std::uint64_t bases) const {
  if (!match_rule_) return 0;
  if (options_.match_min != 0) return options_.match_min;
  if (bases < needed_by_length_.size()) return needed_by_length_[bases];
  // A read of 4 Gbases or more is taken as 4 Gbases (its m, barely smaller).
  return classify::min_matched_bases(std::uint32_t(std::min<std::uint64_t>(bases, 0xffffffffu)),
                                     reference_bases_, classify::chance_calls_one_in);
}

void Classifier::finish(const ReadDecision& decision, const FeatureEvidence& features,
                        ReadResult& result) const {
  // Filled in place, every field as a new ReadResult would hold it (a
  // result made and moved per read freed and allocated its evidence lists).
  result.windows = decision.windows;
  result.hits = decision.hits;
  result.candidate_count = std::uint32_t(decision.top.size());
  if (decision.top.data() != result.top)
    std::copy(decision.top.begin(), decision.top.end(), result.top);
  std::fill(result.top + result.candidate_count, std::end(result.top), classify::Candidate{});
  result.evidence.clear();
  result.mate1_runs = 0;
  result.found.clear();
  result.match = {decision.matched_bases, needed_bases(decision.bases)};
  result.assignment = classify::assign(result.top, result.candidate_count, lineages_.data(),
                                       params(decision.paired), result.match);
  if (!options_.needs_evidence()) return;
  if (!features.taxa.empty()) {
    if (options_.found_features)
      throw std::logic_error("Classifier: --report-minimizer-data needs the features' hashes");
    evidence(
        features.taxa.size(), [&](std::size_t i) { return features.taxa[i]; }, {},
        features.mate1_features, decision.paired, result);
    return;
  }
  const classify::TaxonTree tree = taxa_.tree();
  evidence(
      features.lists.size(),
      [&](std::size_t i) {
        const auto& list = features.lists[i];
        return classify::feature_taxon(list.data(), std::uint32_t(list.size()),
                                       taxa_.target_node.data(), tree);
      },
      features.features, features.mate1_features, decision.paired, result);
}

ReadResult Classifier::decide_features(
    std::span<const std::span<const sketch::Location>> feature_lists,
    std::span<const sketch::feature_t> features, std::span<const std::uint32_t> positions,
    const ReadShape& shape, ClassifierScratch& scratch) const {
  ReadResult result;
  ReadDecision decision = decide(feature_lists, shape, scratch, result.top);
  if (!decision.top.empty())
    decision.matched_bases = matched_bases(feature_lists, positions, decision.top[0], scratch);
  finish(decision, FeatureEvidence{features, feature_lists, {}, shape.mate1_features}, result);
  return result;
}

ReadResult Classifier::classify(std::string_view mate1, std::string_view mate2,
                                ClassifierScratch& scratch) const {
  ReadStage& stage = scratch.stages[0];
  look_up(mate1, mate2, stage);
  return finish_read(stage, scratch);
}

}  // namespace metawarp::pipeline
