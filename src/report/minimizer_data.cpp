#include "report/minimizer_data.hpp"

#include <algorithm>

namespace metawarp::report {

void FeatureTally::add(std::span<const std::pair<sketch::feature_t, taxonomy::taxid_t>> found) {
  for (const auto& [feature, taxid] : found) ++all_[taxid];
  seen_.insert(seen_.end(), found.begin(), found.end());
  // Sorting and deduplicating once the unsorted tail is as long as the sorted
  // head keeps the memory within about twice the distinct pairs, and the
  // work O(n log n) over the run.
  if (seen_.size() - compacted_ > std::max<std::size_t>(compacted_, 1 << 16)) compact();
}

void FeatureTally::compact() {
  std::sort(seen_.begin() + std::ptrdiff_t(compacted_), seen_.end());
  std::inplace_merge(seen_.begin(), seen_.begin() + std::ptrdiff_t(compacted_), seen_.end());
  seen_.erase(std::unique(seen_.begin(), seen_.end()), seen_.end());
  compacted_ = seen_.size();
}

std::unordered_map<taxonomy::taxid_t, FeatureCounts> FeatureTally::per_taxon() {
  compact();
  std::unordered_map<taxonomy::taxid_t, FeatureCounts> result;
  for (const auto& [taxid, count] : all_) result[taxid].all = count;
  for (const auto& [feature, taxid] : seen_) ++result[taxid].distinct;
  return result;
}

MinimizerData clade_minimizer_data(const taxonomy::Taxonomy& taxonomy, FeatureTally& tally) {
  MinimizerData data;
  for (const auto& [taxid, counts] : tally.per_taxon())
    for (const taxonomy::taxid_t ancestor : taxonomy.lineage(taxid)) {
      FeatureCounts& clade = data.clade[ancestor];
      clade.all += counts.all;
      clade.distinct += counts.distinct;
    }
  return data;
}

std::string MinimizerData::columns(taxonomy::taxid_t taxid) const {
  const auto it = clade.find(taxid);
  const FeatureCounts counts = it == clade.end() ? FeatureCounts{} : it->second;
  return std::to_string(counts.all) + '\t' + std::to_string(counts.distinct) + '\t';
}

}  // namespace metawarp::report
