#pragma once
// --report-minimizer-data: the report's two extra columns, as Kraken2's
// --report-minimizer-data adds two (there: minimizers and an estimate of the
// distinct ones): per taxon, the distinct features seen in all reads whose
// feature taxon is that taxon, and how many features of the database have it
// as their taxon. Both exact. Users screen false positives with them (a taxon
// with reads but few distinct features seen of many held is suspect).
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "metawarp/sketch/types.hpp"
#include "taxonomy/taxonomy.hpp"

namespace metawarp::report {

// The distinct (feature, taxon) pairs of a run's reads. A feature's taxon is
// a function of the feature, so distinct pairs are distinct features.
class FeatureTally {
 public:
  void add(std::span<const std::pair<sketch::feature_t, taxonomy::taxid_t>> found);
  // Distinct features per taxon.
  std::unordered_map<taxonomy::taxid_t, std::uint64_t> distinct_per_taxon();

 private:
  void compact();
  std::vector<std::pair<sketch::feature_t, taxonomy::taxid_t>> seen_;
  std::size_t compacted_ = 0;  // seen_[0, compacted_) is sorted and unique
};

// The columns for the report (kraken_report's extra-columns hook).
struct MinimizerData {
  std::unordered_map<taxonomy::taxid_t, std::uint64_t> seen;  // distinct features seen
  std::unordered_map<taxonomy::taxid_t, std::uint64_t> held;  // features in the database
  // "seen<TAB>held<TAB>" for a taxon (0 where it has none).
  std::string columns(taxonomy::taxid_t taxid) const;
};

}  // namespace metawarp::report
