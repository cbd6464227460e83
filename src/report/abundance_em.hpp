#pragma once
// Abundance by expectation-maximisation over each read's candidate taxa.
//
// A read called at or below the abundance rank has one candidate taxon at
// that rank (its ancestor there); a read called above it (the LCA of
// candidates from several species, say) has the set of rank-level taxa of
// the candidates that took part in its call. Reads are kept grouped by that
// set (a multiset of sets: the input order cannot matter). The EM estimates
// each taxon's share p; every read is split over its set in proportion to
// the shares of the set's taxa, and the shares are the reads' expected
// counts divided by the reads:
//   count(t) = sum over sets S holding t of  reads(S) * p(t) / sum_{u in S} p(u)
//   p'(t)    = count(t) / total reads
// starting from equal shares. A read with a single candidate contributes to
// its taxon only; a taxon that no single-candidate read supports can still
// gain reads through the shares of the others. Each step adds the sets in
// their (sorted) order, so the result is the same bit for bit whatever the
// thread count, batch size or read order of the query.
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "taxonomy/taxonomy.hpp"

namespace metawarp::report {

using taxonomy::taxid_t;

// Reads per set of candidate taxa.
class CandidateSets {
 public:
  // `taxa` in any order, duplicates allowed; an empty set is ignored.
  void add(std::span<const taxid_t> taxa, std::uint64_t reads = 1);
  // Reads per set, each set sorted and distinct.
  const std::map<std::vector<taxid_t>, std::uint64_t>& sets() const { return sets_; }
  std::uint64_t reads() const { return reads_; }

 private:
  std::map<std::vector<taxid_t>, std::uint64_t> sets_;
  std::uint64_t reads_ = 0;
  std::vector<taxid_t> scratch_;
};

struct EmOptions {
  std::uint32_t max_iterations = 1000;
  // Stop once no taxon's expected count moves by more than this many reads.
  double tolerance = 1e-6;
};

struct EmEstimate {
  std::map<taxid_t, double> reads;  // expected reads per taxon (sum: the sets' reads)
  std::uint64_t total = 0;          // the sets' reads
  std::uint32_t iterations = 0;
  bool converged = false;
};

EmEstimate estimate_abundance(const CandidateSets& sets, const EmOptions& options = {});

}  // namespace metawarp::report
