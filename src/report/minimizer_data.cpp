#include "report/minimizer_data.hpp"

#include <algorithm>

namespace metawarp::report {

void FeatureTally::add(std::span<const std::pair<sketch::feature_t, taxonomy::taxid_t>> found) {
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

std::unordered_map<taxonomy::taxid_t, std::uint64_t> FeatureTally::distinct_per_taxon() {
  compact();
  std::unordered_map<taxonomy::taxid_t, std::uint64_t> result;
  for (const auto& [feature, taxid] : seen_) ++result[taxid];
  return result;
}

std::string MinimizerData::columns(taxonomy::taxid_t taxid) const {
  const auto s = seen.find(taxid);
  const auto h = held.find(taxid);
  return std::to_string(s == seen.end() ? 0 : s->second) + '\t' +
         std::to_string(h == held.end() ? 0 : h->second) + '\t';
}

}  // namespace metawarp::report
