#pragma once
// Abundance by maximum likelihood with a read-placement profile
// (report/read_profile.hpp; docs/accuracy.md "Abundances from read-placement
// profiles").
//
// The sample's classified reads are counted by assigned taxon a (n_a). A
// read of source genome g is assigned to a with probability P(a|g), the
// profile's share of g's classified reads assigned to a. In two steps:
//  1. The calls at the abundance rank or below (a species, a strain) fix the
//     shares: with P_r(a|g) = P(a|g) / P(rank|g) (P(rank|g): the share of g's
//     reads called at the rank or below), the EM from equal shares
//       r_g' = sum_a n_a r_g P_r(a|g) / sum_h r_h P_r(a|h)
//     gives each genome's reads among them, r_g, and its classified reads
//     c_g = r_g / P(rank|g).
//  2. A call above the rank (the LCA of relatives: a genus, a family) goes to
//     the genomes of the sample that produce it, in proportion to what step 1
//     expects of each: E_g(a) = c_g P(a|g); of n_a reads, genome g gets
//     n_a E_g(a) / E(a), E(a) = sum_g E_g(a) (the EM's split of a call among
//     its sources). All of them, also where n_a passes E(a): a genome known
//     by few calls at the rank (a prophage, a strain among close relatives)
//     has an estimate of c_g too uncertain to cap its share with, and reads
//     with sequencing errors are called higher than the profile's error-free
//     reads (docs/accuracy.md: leaving the excess unassigned lost up to 7 %
//     of the reads; profiles of reads with errors did not help). A call that
//     no genome of the sample produces (E(a) = 0: its producers have no calls
//     at the rank, or the profile has none) is "unexplained": reads of a
//     genome the database lacks, reported as unassigned rather than poured
//     into its neighbours.
// A genome absent from the sample has no calls of its own, so step 1 gives
// it nothing; a genome whose reads the profile never calls at the rank
// cannot be told from its relatives and gets none either (its reads go to
// the relatives that produce such calls, or stay unexplained). Unclassified
// reads are left out (reported as unclassified). Every sum runs in a fixed
// (sorted) order, so the result is the same bit for bit whatever produced
// the counts.
#include <map>

#include "report/abundance_em.hpp"
#include "report/read_profile.hpp"
#include "report/taxon_counts.hpp"
#include "taxonomy/rank.hpp"
#include "taxonomy/taxonomy.hpp"

namespace metawarp::report {

// Step 1's stopping rule: closely related genomes share most calls, so the
// EM may need many steps to part them.
inline constexpr EmOptions profile_em_options{10000, 1e-6};

struct ProfileEstimate {
  std::map<taxid_t, double> sources;  // expected reads per profile source (taxid)
  double unexplained = 0;             // reads no genome explains
  std::uint64_t total = 0;            // the classified reads counted
  std::uint32_t iterations = 0;
  bool converged = false;
};

ProfileEstimate estimate_with_profile(const ReadProfile& profile, const taxonomy::Taxonomy& tax,
                                      const TaxonCounts& counts, taxonomy::CanonicalRank rank,
                                      const EmOptions& options = {});

// The sources' reads summed at `rank` (report::taxon_at_rank), as the
// abundance table takes them: `total` the reads placed at a taxon of the
// rank, so the table shows the rest (u, and sources without a taxon there)
// as unassigned.
EmEstimate estimate_at_rank(const ProfileEstimate& estimate, const taxonomy::Taxonomy& tax,
                            taxonomy::CanonicalRank rank);

}  // namespace metawarp::report
