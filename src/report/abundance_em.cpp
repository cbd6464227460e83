#include "report/abundance_em.hpp"

#include <algorithm>
#include <cmath>

namespace metawarp::report {

void CandidateSets::add(std::span<const taxid_t> taxa, std::uint64_t reads) {
  if (taxa.empty() || reads == 0) return;
  scratch_.assign(taxa.begin(), taxa.end());
  std::sort(scratch_.begin(), scratch_.end());
  scratch_.erase(std::unique(scratch_.begin(), scratch_.end()), scratch_.end());
  auto found = sets_.find(scratch_);
  if (found == sets_.end()) sets_.emplace(scratch_, reads);
  else found->second += reads;
  reads_ += reads;
}

EmEstimate estimate_abundance(const CandidateSets& sets, const EmOptions& options) {
  EmEstimate result;
  result.total = sets.reads();
  if (sets.reads() == 0) return result;
  // Taxa as dense indices (sorted taxids), sets as index lists.
  std::vector<taxid_t> taxa;
  for (const auto& [set, reads] : sets.sets()) taxa.insert(taxa.end(), set.begin(), set.end());
  std::sort(taxa.begin(), taxa.end());
  taxa.erase(std::unique(taxa.begin(), taxa.end()), taxa.end());
  struct Group {
    std::vector<std::uint32_t> members;
    double reads;
  };
  std::vector<Group> groups;
  for (const auto& [set, reads] : sets.sets()) {
    Group g{{}, double(reads)};
    for (const taxid_t t : set)
      g.members.push_back(
          std::uint32_t(std::lower_bound(taxa.begin(), taxa.end(), t) - taxa.begin()));
    groups.push_back(std::move(g));
  }

  const double total = double(sets.reads());
  std::vector<double> share(taxa.size(), 1.0 / double(taxa.size()));
  std::vector<double> counts(taxa.size(), 0.0);
  for (result.iterations = 1; result.iterations <= options.max_iterations; ++result.iterations) {
    std::fill(counts.begin(), counts.end(), 0.0);
    for (const Group& g : groups) {
      double sum = 0;
      for (const std::uint32_t m : g.members) sum += share[m];
      // All shares of a set at zero: split it evenly (cannot happen from
      // equal starting shares, as every set's reads keep its shares above
      // zero, but costs nothing to state).
      for (const std::uint32_t m : g.members)
        counts[m] += sum > 0 ? g.reads * share[m] / sum : g.reads / double(g.members.size());
    }
    double largest_move = 0;
    for (std::size_t t = 0; t < taxa.size(); ++t) {
      largest_move = std::max(largest_move, std::fabs(counts[t] - share[t] * total));
      share[t] = counts[t] / total;
    }
    if (largest_move <= options.tolerance) {
      result.converged = true;
      break;
    }
  }
  if (result.iterations > options.max_iterations) result.iterations = options.max_iterations;
  for (std::size_t t = 0; t < taxa.size(); ++t) result.reads[taxa[t]] = counts[t];
  return result;
}

}  // namespace metawarp::report
