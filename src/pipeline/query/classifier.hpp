#pragma once
// Classification of one read or read pair against a loaded database, on the
// CPU. The scoring and assignment rules live in include/metawarp/classify/
// (shared with the GPU); this file gathers the hits and owns the per-target
// lineage table they need.
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "db/database.hpp"
#include "metawarp/classify/assign.hpp"
#include "metawarp/classify/candidates.hpp"
#include "metawarp/classify/confidence.hpp"
#include "metawarp/classify/matched_bases.hpp"
#include "metawarp/classify/taxon_tree.hpp"
#include "taxonomy/rank.hpp"

namespace metawarp::pipeline {

// The automatic --hit-min and --hit-diff of a database (docs/accuracy.md,
// "Content-defined sampling"). Minhash windows (MetaCache's sketch): a third
// (single reads) or half (pairs) of s, and 3; a read's features there are
// the s smallest of ITS windows, so a related genome's count wanders by a few
// hits either way. Content-defined sampling keeps a k-mer wherever it occurs:
// a read of a genome finds nearly all its features there, a related genome
// exactly those it shares, so any difference in hits is a difference in
// shared sequence (hit-diff 0: the LCA of the candidates tied with the best);
// chance hits are rare (32-bit features, k 20): 2 hits for a single read or
// a pair (Kraken2's two hit groups); the matched-bases rule (match_min)
// keeps the chance calls a pair's twice as many features would bring (with
// it none of 10,000 shuffled pairs or mates classified on refs138, and pairs
// at 2 rather than 4 hits gain sensitivity: docs/accuracy.md).
inline constexpr std::uint32_t auto_hit_diff = 0xffffffffu;
std::uint32_t auto_hit_min(const sketch::SketchParams& p, bool paired);
std::uint32_t auto_hit_diff_of(const sketch::SketchParams& p);

// Defaults chosen on refs138 + art_mock (docs/accuracy.md): with 2 candidates
// and hit-diff 0 (MetaCache's shape) closely related strains of different
// species (E. coli / Shigella) win by a hit or two and precision drops to
// 0.97; looking at 8 candidates within 3 hits of the best, over a 500 bp
// fragment, gives species P 0.998 / S 0.889 (window databases).
struct ClassifierOptions {
  std::uint32_t max_candidates = 8;  // 1..classify::max_candidates_limit
  // 0: automatic (auto_hit_min).
  std::uint32_t hit_min = 0;
  // --match-min BASES: the least read bases the best candidate's k-mers must
  // cover for a call (classify/matched_bases.hpp); 0: automatic, from the
  // read's length, the database's bases and classify::chance_calls_one_in.
  // Content-defined sampling only: minhash-window databases ignore it.
  std::uint32_t match_min = 0;
  // LCA over candidates with hits >= best - hit_diff; auto_hit_diff: by the
  // database's sampling (auto_hit_diff_of above).
  std::uint32_t hit_diff = auto_hit_diff;
  taxonomy::CanonicalRank lowest = taxonomy::CanonicalRank::sequence;
  taxonomy::CanonicalRank highest = taxonomy::CanonicalRank::root;
  // Fragment length used for the window span of a pair: max(insert_size,
  // len1 + len2); 0: len1 + len2. Single reads use their own length.
  std::uint64_t insert_size = 500;
  // --confidence F in millionths (classify/confidence.hpp); 0: off.
  std::uint32_t confidence_millionths = 0;
  // --minimum-hit-groups N (Kraken2's): a call stands only when at least N of
  // the read's features are in the database (have a feature taxon), else the
  // read is unclassified; checked after --confidence, as Kraken2 voids a call
  // made from fewer minimizer hit groups. 0: off.
  std::uint32_t minimum_hit_groups = 0;
  // Collect each read's evidence (ReadResult::evidence): the Kraken output's
  // column 5 and --report-minimizer-data need it; --confidence and
  // --minimum-hit-groups imply it.
  bool evidence = false;
  // Also list each read's features found in the database with their taxa
  // (ReadResult::found), for --report-minimizer-data; implies the evidence.
  bool found_features = false;
  bool needs_evidence() const {
    return evidence || found_features || confidence_millionths != 0 || minimum_hit_groups != 0;
  }
  bool operator==(const ClassifierOptions&) const = default;
};

struct ReadResult {
  classify::Assignment assignment;
  classify::Candidate top[classify::max_candidates_limit];
  std::uint32_t candidate_count = 0;
  std::uint32_t windows = 0;  // read windows sketched (both mates)
  std::uint32_t hits = 0;     // locations gathered
  // The matched-bases rule's numbers (both 0 for minhash-window databases).
  classify::MatchedBases match;
  // With ClassifierOptions::needs_evidence(): the read's features in their
  // order (mate 1's windows, then mate 2's; a window's features in sketch
  // order) as runs of equal feature taxon (taxids; 0: not in the database),
  // mate 1's runs first: evidence[0, mate1_runs). Empty otherwise.
  std::vector<classify::EvidenceRun> evidence;
  std::uint32_t mate1_runs = 0;
  // With ClassifierOptions::found_features: (feature, its taxon) for every
  // feature of the read with a taxon, in the read's order.
  std::vector<std::pair<sketch::feature_t, taxonomy::taxid_t>> found;
};

// What the decision needs of a read besides its hits.
struct ReadShape {
  std::uint32_t windows = 0;  // read windows sketched (both mates)
  std::uint64_t bases = 0;    // both mates' bases
  std::uint32_t span = 0;     // classify::window_span of the fragment
  bool paired = false;
  std::uint32_t mate1_features = 0;  // the read's first features that are mate 1's
};

// What the decision found for a read, on the host or the device: its
// windows and hits counted, its top candidates, best first.
struct ReadDecision {
  std::uint32_t windows = 0;
  std::uint32_t hits = 0;
  std::span<const classify::Candidate> top;
  bool paired = false;
  std::uint64_t bases = 0;           // both mates'
  std::uint32_t matched_bases = 0;   // top[0]'s (Classifier::matched_bases)
};

// What the evidence (Classifier::finish) needs of a read's features, from
// where they were looked up: each feature's location list (the host), or
// each feature's taxon (classify::feature_taxon of its list, computed where
// the lists are: the GPU; not with --report-minimizer-data, which needs the
// features' hashes too). Empty: the options need no evidence.
struct FeatureEvidence {
  std::span<const sketch::feature_t> features;  // with the lists
  std::span<const std::span<const sketch::Location>> lists;
  std::span<const classify::taxon_node_t> taxa;
  std::uint32_t mate1_features = 0;  // the first features that are mate 1's
};

// One read in flight through Classifier's lookup stages.
struct ReadStage {
  std::vector<sketch::feature_t> features;               // both mates' window sketches
  std::vector<std::uint32_t> positions;                  // each feature's read position
  std::vector<std::uint64_t> handles;                    // FeatureIndex::probe per feature
  std::vector<std::span<const sketch::Location>> lists;  // location list per feature
  ReadShape shape;
};

// Reusable per-thread buffers, so classifying a read does not allocate.
struct ClassifierScratch {
  // classify_many keeps this many reads in flight (one per lookup stage).
  static constexpr std::size_t pipeline_depth = 6;
  ReadStage stages[pipeline_depth];
  std::vector<sketch::window_id_t> windows;  // hits' windows, grouped by target
  std::vector<sketch::Location> hits;        // sorted by (target, window)
  std::vector<std::uint32_t> window_counts;  // counting sort of a target's windows
  // Counting sort by target: per-target counters (all zero between reads)
  // and the targets hit by the current read.
  std::vector<std::uint32_t> target_slots;
  std::vector<sketch::target_id_t> targets_hit;
  std::vector<std::uint32_t> matched_positions;  // Classifier::matched_bases
};

// Per-target ranked lineages in the form classify::assign expects.
std::vector<classify::TargetLineage> target_lineages(const db::Database& db);

// The database's taxonomy as classify::TaxonTree arrays: node i + 1 is
// db.taxonomy.nodes()[i]; plus each target's node (0: unmapped).
struct TaxonArrays {
  std::vector<classify::taxon_node_t> parent;  // n + 1 (node 0: none)
  std::vector<std::uint32_t> depth;
  std::vector<taxonomy::taxid_t> taxid;        // node -> taxid
  std::vector<classify::taxon_node_t> target_node;
  classify::TaxonTree tree() const { return {parent.data(), depth.data()}; }
  // The node of a taxid (after merged ids), 0 for unknown ids.
  classify::taxon_node_t node_of(const taxonomy::Taxonomy& taxonomy, taxonomy::taxid_t id) const;
};
TaxonArrays taxon_arrays(const db::Database& db);

// Throws std::invalid_argument naming the option out of range (the checks
// need no database: the command line makes them before loading one).
void check_classifier_options(const ClassifierOptions& options);

class Classifier {
 public:
  // Throws std::invalid_argument for options out of range. `db` must outlive this.
  Classifier(const db::Database& db, const ClassifierOptions& options);

  // mate2 empty for single-end reads. Thread-safe (const) given distinct scratch.
  ReadResult classify(std::string_view mate1, std::string_view mate2,
                      ClassifierScratch& scratch) const;

  // results[i] = classify(reads[i].mate1, reads[i].mate2, scratch) for i in
  // [0, reads.size()); `Reads` is a random-access range of elements with
  // string_view-convertible mate1 and mate2. Reads go through the lookup
  // stages staggered, so the memory loads of several reads overlap.
  template <class Reads>
  void classify_many(const Reads& reads, ReadResult* results, ClassifierScratch& scratch) const {
    // Read i is sketched (its slots prefetched) at step i, probed (its lists
    // prefetched) at step i + probe_lag and finished at step i + finish_lag:
    // enough other work in between for the loads to arrive.
    const std::size_t n = std::size(reads);
    constexpr std::size_t depth = ClassifierScratch::pipeline_depth;
    constexpr std::size_t probe_lag = depth / 2;
    constexpr std::size_t finish_lag = depth - 1;
    for (std::size_t step = 0; step < n + finish_lag; ++step) {
      if (step < n)
        begin_read(reads[step].mate1, reads[step].mate2, scratch.stages[step % depth]);
      if (step >= probe_lag && step - probe_lag < n)
        probe_read(scratch.stages[(step - probe_lag) % depth]);
      if (step >= finish_lag && step - finish_lag < n) {
        ReadStage& stage = scratch.stages[(step - finish_lag) % depth];
        resolve_read(stage);
        results[step - finish_lag] = finish_read(stage, scratch);
      }
    }
  }

  // The per-read work, split once for every engine: sketch (sketch_read),
  // look up (look_up on the CPU; a part's collector, the GPU's kernels
  // elsewhere), decide (the candidates: decide() here, the same
  // classify::top_candidates in a kernel on the GPU) and finish (finish():
  // the assignment and the evidence, filling every field of the result).
  // classify(m1, m2) == decide_features(lists of find(f) for f in its
  // features, features, shape).
  //
  // sketch_read appends the read's features (both mates' window sketches, in
  // order) to `features`, and each one's read position (its k-mer's start;
  // mate 2's counted after mate 1's bases; sketch_window_positions, with
  // content-defined sampling, else 0) to `positions`, and returns its shape.
  ReadShape sketch_read(std::string_view mate1, std::string_view mate2,
                        std::vector<sketch::feature_t>& features,
                        std::vector<std::uint32_t>& positions) const;
  // The read's features looked up in the database (classify()'s first
  // stages): stage.features, stage.lists and stage.shape set.
  void look_up(std::string_view mate1, std::string_view mate2, ReadStage& stage) const;
  // The candidates of a read from all its hits, one whole location list per
  // feature (as the database stores it), the lists in any order (a feature
  // counts at most once per candidate: classify::repeats_within_span),
  // written to top[0, max_candidates).
  ReadDecision decide(std::span<const std::span<const sketch::Location>> lists,
                      const ReadShape& shape, ClassifierScratch& scratch,
                      classify::Candidate* top) const;
  // Every field of `result` (kept buffers reused) from the decision, wherever
  // it ran, and, when the options need the evidence, from `evidence`.
  void finish(const ReadDecision& decision, const FeatureEvidence& evidence,
              ReadResult& result) const;
  // The bases of the read that the k-mers of its features meeting `best`'s
  // window range cover (classify::union_length of their positions, as
  // sketch_read gave them); 0 when the rule is off (minhash windows).
  // lists[i] is feature i's whole list.
  std::uint32_t matched_bases(std::span<const std::span<const sketch::Location>> lists,
                              std::span<const std::uint32_t> positions,
                              const classify::Candidate& best, ClassifierScratch& scratch) const;
  // The least matched bases a call of a read of `bases` bases needs: --match-min,
  // or classify::min_matched_bases of the database; 0 for minhash windows.
  std::uint32_t needed_bases(std::uint64_t bases) const;
  // Whether the matched-bases rule applies (content-defined sampling).
  bool match_rule() const { return match_rule_; }
  // decide(), matched_bases() and finish() for hits given feature by feature:
  // feature_lists[i] is the whole list of the read's feature i (empty when
  // the database lacks it), which the evidence (--kraken-output,
  // --confidence) needs; positions[i] its read position (sketch_read).
  ReadResult decide_features(std::span<const std::span<const sketch::Location>> feature_lists,
                             std::span<const sketch::feature_t> features,
                             std::span<const std::uint32_t> positions,
                             const ReadShape& shape, ClassifierScratch& scratch) const;

  std::uint32_t hit_min(bool paired) const { return params(paired).hit_min; }
  const classify::AssignParams& params(bool paired) const {
    return paired ? pair_params_ : single_params_;
  }
  const std::vector<classify::TargetLineage>& lineages() const { return lineages_; }
  const TaxonArrays& taxa() const { return taxa_; }
  const ClassifierOptions& options() const { return options_; }
  const sketch::SketchParams& sketch_params() const { return db_.params.sketch; }

 private:
  // The stages of classify(): sketch and prefetch slots, probe the slots,
  // resolve the location lists, then count, sort and assign.
  // The evidence of finish(): feature i's taxon is taxon_of(i), of `count`.
  template <class TaxonOf>
  void evidence(std::size_t count, TaxonOf taxon_of, std::span<const sketch::feature_t> features,
                std::uint32_t mate1_features, bool paired, ReadResult& result) const;
  void begin_read(std::string_view mate1, std::string_view mate2, ReadStage& stage) const;
  void probe_read(ReadStage& stage) const;
  void resolve_read(ReadStage& stage) const;
  ReadResult finish_read(const ReadStage& stage, ClassifierScratch& scratch) const;
  // Appends the window sketches of seq to features; returns the windows.
  // Appends the window sketches of seq to features and their positions
  // (plus `offset`) to positions; returns the windows.
  std::uint32_t sketch(std::string_view seq, std::uint32_t offset,
                       std::vector<sketch::feature_t>& features,
                       std::vector<std::uint32_t>& positions) const;
  // Fills scratch.hits with the locations of lists, sorted by (target, window),
  // less those classify::repeats_within_span drops.
  void gather_sorted_hits(std::span<const std::span<const sketch::Location>> lists,
                          std::uint32_t span, ClassifierScratch& scratch) const;

  const db::Database& db_;
  ClassifierOptions options_;
  classify::AssignParams single_params_;
  classify::AssignParams pair_params_;
  std::vector<classify::TargetLineage> lineages_;
  TaxonArrays taxa_;
  std::vector<classify::TargetLineage> node_lineages_;  // lineages_ as taxon nodes
  // The matched-bases rule is on (content-defined sampling) and G, the
  // database's reference bases (its targets' lengths summed: every load,
  // whole or in parts, on any rank or device, has the targets).
  bool match_rule_ = false;
  std::uint64_t reference_bases_ = 0;
  // needed_bases of reads of up to 1,023 bases, computed once: the search
  // for m (up to 65 steps of 128-bit products) per read cost the GPU
  // query's host side more than the rest of its assignment.
  std::vector<std::uint32_t> needed_by_length_;
};

}  // namespace metawarp::pipeline
