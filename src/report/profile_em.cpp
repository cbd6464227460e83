#include "report/profile_em.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "report/abundance.hpp"

namespace metawarp::report {

namespace {

// The taxid a call counts under: merged ids resolved, unknown ids as they are.
taxid_t outcome_of(const taxonomy::Taxonomy& tax, taxid_t taxid) {
  const taxid_t resolved = tax.resolve(taxid);
  return resolved == taxonomy::no_taxon ? taxid : resolved;
}

// One observed call: its reads, and the genomes that produce it with P(a|g).
struct Outcome {
  double reads = 0;
  bool at_rank = false;
  std::vector<std::pair<std::uint32_t, double>> producers;
};

// Step 1: reads per genome among the calls at the rank.
std::vector<double> shares_at_rank(const std::map<taxid_t, Outcome>& outcomes,
                                   const std::vector<double>& at_rank_share,
                                   const EmOptions& options, ProfileEstimate& result) {
  const std::size_t genomes = at_rank_share.size();
  double total = 0;
  for (const auto& [taxid, outcome] : outcomes)
    if (outcome.at_rank && !outcome.producers.empty()) total += outcome.reads;
  std::vector<double> reads(genomes, 0.0);
  if (total == 0) return reads;
  std::vector<double> share(genomes, 1.0 / double(genomes));
  for (result.iterations = 1; result.iterations <= options.max_iterations; ++result.iterations) {
    std::fill(reads.begin(), reads.end(), 0.0);
    for (const auto& [taxid, outcome] : outcomes) {
      if (!outcome.at_rank) continue;
      double mixture = 0;
      for (const auto& [g, p] : outcome.producers) mixture += share[g] * p / at_rank_share[g];
      if (mixture <= 0) continue;
      for (const auto& [g, p] : outcome.producers)
        reads[g] += outcome.reads * share[g] * p / at_rank_share[g] / mixture;
    }
    double largest_move = 0;
    for (std::size_t g = 0; g < genomes; ++g) {
      largest_move = std::max(largest_move, std::fabs(reads[g] - share[g] * total));
      share[g] = reads[g] / total;
    }
    if (largest_move <= options.tolerance) {
      result.converged = true;
      break;
    }
  }
  if (result.iterations > options.max_iterations) result.iterations = options.max_iterations;
  return reads;
}

}  // namespace

ProfileEstimate estimate_with_profile(const ReadProfile& profile, const taxonomy::Taxonomy& tax,
                                      const TaxonCounts& counts, taxonomy::CanonicalRank rank,
                                      const EmOptions& options) {
  ProfileEstimate result;
  std::map<taxid_t, Outcome> outcomes;
  for (const auto& [taxid, reads] : counts.direct) {
    Outcome& outcome = outcomes[outcome_of(tax, taxid)];
    outcome.reads += double(reads);
    result.total += reads;
  }
  if (result.total == 0) return result;
  for (auto& [taxid, outcome] : outcomes)
    outcome.at_rank = taxon_at_rank(tax, taxid, rank) != taxonomy::no_taxon;

  // P(a|g) over g's classified reads for the observed a, and P(rank|g).
  const std::size_t genomes = profile.sources.size();
  std::vector<double> at_rank_share(genomes, 0.0);
  for (std::uint32_t g = 0; g < genomes; ++g) {
    std::uint64_t classified = 0, at_rank = 0;
    for (const auto& [taxid, reads] : profile.sources[g].assigned) {
      if (taxid == taxonomy::no_taxon) continue;
      classified += reads;
      if (taxon_at_rank(tax, taxid, rank) != taxonomy::no_taxon) at_rank += reads;
    }
    if (classified == 0) continue;
    at_rank_share[g] = double(at_rank) / double(classified);
    for (const auto& [taxid, reads] : profile.sources[g].assigned) {
      if (taxid == taxonomy::no_taxon) continue;
      const auto found = outcomes.find(outcome_of(tax, taxid));
      if (found == outcomes.end()) continue;
      // A genome never called at the rank takes no part in step 1.
      if (found->second.at_rank && at_rank == 0) continue;
      found->second.producers.emplace_back(g, double(reads) / double(classified));
    }
  }

  std::vector<double> reads = shares_at_rank(outcomes, at_rank_share, options, result);
  std::vector<double> classified(genomes, 0.0);
  for (std::size_t g = 0; g < genomes; ++g)
    if (at_rank_share[g] > 0) classified[g] = reads[g] / at_rank_share[g];
  // Step 2: the calls above the rank (and those no genome produces).
  for (const auto& [taxid, outcome] : outcomes) {
    if (outcome.at_rank && !outcome.producers.empty()) continue;
    double expected = 0;
    for (const auto& [g, p] : outcome.producers) expected += classified[g] * p;
    if (expected <= 0) {  // no genome of the sample produces it
      result.unexplained += outcome.reads;
      continue;
    }
    for (const auto& [g, p] : outcome.producers)
      reads[g] += outcome.reads * classified[g] * p / expected;
  }
  for (std::uint32_t g = 0; g < genomes; ++g)
    if (reads[g] > 0) result.sources[profile.sources[g].taxid] += reads[g];
  return result;
}

EmEstimate estimate_at_rank(const ProfileEstimate& estimate, const taxonomy::Taxonomy& tax,
                            taxonomy::CanonicalRank rank) {
  EmEstimate result;
  result.converged = estimate.converged;
  result.iterations = estimate.iterations;
  double placed = 0;
  for (const auto& [source, reads] : estimate.sources) {
    const taxid_t taxon = taxon_at_rank(tax, source, rank);
    if (taxon == taxonomy::no_taxon) continue;
    result.reads[taxon] += reads;
    placed += reads;
  }
  result.total = std::uint64_t(std::llround(placed));
  return result;
}

}  // namespace metawarp::report
