#pragma once
// Classification of one read or read pair against a loaded database, on the
// CPU. The scoring and assignment rules live in include/metawarp/classify/
// (shared with the GPU); this file gathers the hits and owns the per-target
// lineage table they need.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "db/database.hpp"
#include "metawarp/classify/assign.hpp"
#include "metawarp/classify/candidates.hpp"
#include "taxonomy/rank.hpp"

namespace metawarp::pipeline {

// Defaults chosen on refs138 + art_mock (docs/accuracy.md): with 2 candidates
// and hit-diff 0 (MetaCache's shape) closely related strains of different
// species (E. coli / Shigella) win by a hit or two and precision drops to
// 0.97; looking at 8 candidates within 3 hits of the best, over a 500 bp
// fragment, gives species P 0.998 / S 0.889.
struct ClassifierOptions {
  std::uint32_t max_candidates = 8;  // 1..classify::max_candidates_limit
  // 0: automatic, max(1, s / 3) for single reads and max(1, s / 2) for pairs:
  // a pair looks up twice the windows, so chance hits (shuffled reads) reach
  // higher counts; measured in docs/accuracy.md.
  std::uint32_t hit_min = 0;
  std::uint32_t hit_diff = 3;        // LCA over candidates with hits >= best - hit_diff
  taxonomy::CanonicalRank lowest = taxonomy::CanonicalRank::sequence;
  taxonomy::CanonicalRank highest = taxonomy::CanonicalRank::root;
  // Fragment length used for the window span of a pair: max(insert_size,
  // len1 + len2); 0: len1 + len2. Single reads use their own length.
  std::uint64_t insert_size = 500;
};

struct ReadResult {
  classify::Assignment assignment;
  classify::Candidate top[classify::max_candidates_limit];
  std::uint32_t candidate_count = 0;
  std::uint32_t windows = 0;  // read windows sketched (both mates)
  std::uint32_t hits = 0;     // locations gathered
};

// Reusable per-thread buffers, so classifying a read does not allocate.
struct ClassifierScratch {
  std::vector<sketch::Location> hits;
};

// Per-target ranked lineages in the form classify::assign expects.
std::vector<classify::TargetLineage> target_lineages(const db::Database& db);

class Classifier {
 public:
  // Throws std::invalid_argument for options out of range. `db` must outlive this.
  Classifier(const db::Database& db, const ClassifierOptions& options);

  // mate2 empty for single-end reads. Thread-safe (const) given distinct scratch.
  ReadResult classify(std::string_view mate1, std::string_view mate2,
                      ClassifierScratch& scratch) const;

  std::uint32_t hit_min(bool paired) const { return params(paired).hit_min; }
  const classify::AssignParams& params(bool paired) const {
    return paired ? pair_params_ : single_params_;
  }
  const std::vector<classify::TargetLineage>& lineages() const { return lineages_; }

 private:
  void gather(std::string_view seq, ClassifierScratch& scratch, std::uint32_t& windows) const;

  const db::Database& db_;
  ClassifierOptions options_;
  classify::AssignParams single_params_;
  classify::AssignParams pair_params_;
  std::vector<classify::TargetLineage> lineages_;
};

}  // namespace metawarp::pipeline

namespace metawarp::pipeline {

// "sequence", "subspecies", "species", "genus", ..., "domain" (also
// "superkingdom"), "root"; nullopt for anything else.
std::optional<taxonomy::CanonicalRank> parse_canonical_rank(std::string_view name);

}  // namespace metawarp::pipeline
