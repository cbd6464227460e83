#pragma once
// --report-minimizer-data: the report's two extra columns with Kraken2's
// meaning (its reports.cc): per clade, the minimizers of all reads whose
// database taxon lies in the clade, and the distinct ones among them. Here a
// minimizer is a read's feature found in the database, its taxon the
// feature taxon; counted as often as the reads hold it (Kraken2 counts each
// hit group), and the distinct ones counted exactly (Kraken2 estimates them
// with HyperLogLog). Features of every read count, classified or not.
// Users screen false positives with them (a clade with reads but few
// distinct features is suspect).
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "metawarp/sketch/types.hpp"
#include "taxonomy/taxonomy.hpp"

namespace metawarp::report {

// A taxon's or a clade's features: all, and the distinct ones.
struct FeatureCounts {
  std::uint64_t all = 0;
  std::uint64_t distinct = 0;
};

// The (feature, taxon) pairs of a run's reads. A feature's taxon is a
// function of the feature, so distinct pairs are distinct features, and the
// distinct features of taxa are disjoint sets.
class FeatureTally {
 public:
  void add(std::span<const std::pair<sketch::feature_t, taxonomy::taxid_t>> found);
  // Per taxon (not clade): its features and the distinct ones.
  std::unordered_map<taxonomy::taxid_t, FeatureCounts> per_taxon();

 private:
  void compact();
  std::vector<std::pair<sketch::feature_t, taxonomy::taxid_t>> seen_;
  std::size_t compacted_ = 0;  // seen_[0, compacted_) is sorted and unique
  std::unordered_map<taxonomy::taxid_t, std::uint64_t> all_;  // every occurrence
};

// The columns for the report (kraken_report's extra-columns hook).
struct MinimizerData {
  std::unordered_map<taxonomy::taxid_t, FeatureCounts> clade;
  // "all<TAB>distinct<TAB>" for a clade (0 where it has none, and for the
  // unclassified line, taxid 0).
  std::string columns(taxonomy::taxid_t taxid) const;
};

// Each taxon's counts added to its own and every ancestor's clade.
MinimizerData clade_minimizer_data(const taxonomy::Taxonomy& taxonomy, FeatureTally& tally);

}  // namespace metawarp::report
