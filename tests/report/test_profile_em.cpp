// The profile estimate (report/profile_em.hpp) on small constructed
// profiles: the sample's calls are the model's expected counts for chosen
// genome shares, so the estimate must give back those shares; calls above
// the rank go to the genomes that produce them, in proportion; calls no
// genome of the sample produces end up unexplained; the profile text round-trips
// and a damaged one is refused.
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "catch.hpp"
#include "report/bracken_output.hpp"
#include "report/profile_em.hpp"
#include "report/read_profile.hpp"
#include "near.hpp"

using namespace metawarp::report;
using namespace metawarp::taxonomy;

namespace {

// Genus 10 with species 11, 12 (in the database) and 13 (not); genus 20
// with species 21 (in the database).
Taxonomy tree() {
  return Taxonomy::from_nodes({
      {1, 1, Rank::none, "root"},
      {10, 1, Rank::genus, "Genus"},
      {11, 10, Rank::species, "Species one"},
      {12, 10, Rank::species, "Species two"},
      {13, 10, Rank::species, "Species three"},
      {20, 1, Rank::genus, "Genus two"},
      {21, 20, Rank::species, "Species four"},
  });
}

// Per genome: its reads (in tenths of the genome's classified reads) by call.
using Model = std::map<taxid_t, std::map<taxid_t, std::uint64_t>>;

ReadProfile profile_of(const Model& model) {
  ReadProfile profile;
  for (const auto& [genome, calls] : model) {
    metawarp::report::ProfileSource source{genome, 0, {calls.begin(), calls.end()}};
    for (const auto& [taxid, reads] : calls) source.reads += reads;
    profile.sources.push_back(source);
  }
  return profile;
}

// The calls `reads` reads of these genome shares are expected to get.
TaxonCounts expected_calls(const Model& model, const std::map<taxid_t, double>& share,
                           double reads) {
  std::map<taxid_t, double> calls;
  for (const auto& [genome, row] : model) {
    std::uint64_t total = 0;
    for (const auto& [taxid, n] : row) total += n;
    for (const auto& [taxid, n] : row)
      calls[taxid] += reads * share.at(genome) * double(n) / double(total);
  }
  TaxonCounts counts;
  for (const auto& [taxid, n] : calls) {
    REQUIRE(near(n, std::round(n), 1e-9));  // the test's numbers give whole reads
    counts.add(taxid, std::uint64_t(std::llround(n)));
  }
  return counts;
}

// Genome 11: 8/10 called at its species, 2/10 at the genus; genome 12: 1/10
// at species 11, 5/10 at its own, 4/10 at the genus.
const Model model = {{11, {{11, 8}, {10, 2}}}, {12, {{11, 1}, {12, 5}, {10, 4}}}};

// The message parse_profile refuses `text` with ("" when it does not).
std::string refusal(const std::string& text) {
  try {
    metawarp::report::parse_profile(text, "p");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the profile estimate gives back the shares that produced the calls") {
  const auto tax = tree();
  for (const double first : {0.7, 0.2, 0.5}) {
    const std::map<taxid_t, double> share = {{11, first}, {12, 1 - first}};
    const TaxonCounts counts = expected_calls(model, share, 1000);
    const auto estimate = metawarp::report::estimate_with_profile(
        profile_of(model), tax, counts, CanonicalRank::species,
        metawarp::report::profile_em_options);
    CHECK(estimate.converged);
    CHECK(estimate.total == 1000);
    CHECK(near(estimate.sources.at(11), 1000 * first, 1e-3));
    CHECK(near(estimate.sources.at(12), 1000 * (1 - first), 1e-3));
    CHECK(near(estimate.unexplained, 0, 1e-3));
  }
}

TEST_CASE("calls no genome of the sample produces stay unexplained") {
  // Genome 21 is in the database, not in the sample: the genus calls only it
  // produces, and the calls of a species no genome is called as (reads of
  // species the database lacks), stay unexplained, not given to 11 or 12.
  const auto tax = tree();
  Model with_21 = model;
  with_21[21] = {{21, 9}, {20, 1}};
  TaxonCounts counts = expected_calls(model, {{11, 0.7}, {12, 0.3}}, 1000);
  counts.add(20, 100);  // genus calls of a genome the sample lacks
  counts.add(13, 50);   // a species no genome of the database is called as
  const auto estimate = metawarp::report::estimate_with_profile(
      profile_of(with_21), tax, counts, CanonicalRank::species,
      metawarp::report::profile_em_options);
  CHECK(near(estimate.sources.at(11), 700, 1e-3));
  CHECK(near(estimate.sources.at(12), 300, 1e-3));
  CHECK(estimate.sources.count(21) == 0);
  CHECK(near(estimate.unexplained, 150, 1e-3));
  const auto at_species = metawarp::report::estimate_at_rank(estimate, tax, CanonicalRank::species);
  CHECK(at_species.total == 1000);
  const auto at_genus = metawarp::report::estimate_at_rank(estimate, tax, CanonicalRank::genus);
  CHECK(near(at_genus.reads.at(10), 1000, 1e-3));

  // Bracken's columns: name, taxid, level, reads called there, added, estimate, fraction.
  const std::string bracken =
      metawarp::report::bracken_output(tax, counts, CanonicalRank::species, at_species);
  CHECK(bracken ==
        "name\ttaxonomy_id\ttaxonomy_lvl\tkraken_assigned_reads\tadded_reads\tnew_est_reads\t"
        "fraction_total_reads\n"
        "Species one\t11\tS\t590\t110\t700\t0.70000\n"
        "Species two\t12\tS\t150\t150\t300\t0.30000\n");
}

TEST_CASE("calls above the rank, fewer or more than expected, are shared in proportion") {
  // The genus calls fall short of what the shares expect (reads lost to
  // unclassified, say) or pass it (reads with errors called higher, a genome
  // known by few calls at the rank): each genome gets its expected genus
  // reads scaled by seen / expected, so the estimate adds up to the calls
  // seen and nothing is left unexplained.
  const auto tax = tree();
  const std::map<taxid_t, double> share = {{11, 0.7}, {12, 0.3}};
  for (const int change : {-100, 100}) {
    TaxonCounts counts = expected_calls(model, share, 1000);
    const std::uint64_t genus_seen = std::uint64_t(std::int64_t(counts.direct.at(10)) + change);
    counts.direct[10] = genus_seen;
    double genus_expected = 0;
    std::map<taxid_t, double> at_species;  // each genome's expected species calls
    for (const auto& [genome, row] : model) {
      std::uint64_t total = 0;
      for (const auto& [taxid, n] : row) total += n;
      genus_expected += 1000 * share.at(genome) * double(row.at(10)) / double(total);
      at_species[genome] = 1000 * share.at(genome) * double(total - row.at(10)) / double(total);
    }
    const auto estimate = metawarp::report::estimate_with_profile(
        profile_of(model), tax, counts, CanonicalRank::species,
        metawarp::report::profile_em_options);
    const double scale = double(genus_seen) / genus_expected;
    for (const taxid_t genome : {11, 12})
      CHECK(near(estimate.sources.at(genome),
                 at_species[genome] + (1000 * share.at(genome) - at_species[genome]) * scale,
                 1e-3));
    CHECK(near(estimate.sources.at(11) + estimate.sources.at(12), 1000 + change, 1e-3));
    CHECK(near(estimate.unexplained, 0, 1e-3));
  }
}

TEST_CASE("a profile's text round-trips, and a damaged or foreign one is refused") {
  ReadProfile profile = profile_of(model);
  profile.database = {3, 12345, 1, 2, 3, 4};
  profile.reads = {150, true, 400, 10};
  profile.classifier = {8, 0, 0xffffffffu, 0, 10, 500, 0, 0};
  const std::string text = metawarp::report::profile_text(profile);
  CHECK(metawarp::report::parse_profile(text, "p") == profile);

  std::string damaged = text;
  damaged[damaged.find("source 12") + 7] = '3';
  CHECK(refusal(damaged).find("profile 'p': damaged") != std::string::npos);
  CHECK(refusal(text.substr(0, text.size() / 2)).find("truncated") != std::string::npos);
  CHECK(refusal("hello\n").find("not a metawarp read-placement profile") != std::string::npos);
}

TEST_CASE("the nearest profile of the sample's layout is chosen") {
  std::vector<ReadProfile> profiles(3);
  profiles[0].reads = {100, false, 0, 1};
  profiles[1].reads = {150, false, 0, 1};
  profiles[2].reads = {150, true, 400, 1};
  CHECK(metawarp::report::nearest_profile(profiles, false, 140) == &profiles[1]);
  CHECK(metawarp::report::nearest_profile(profiles, false, 125) == &profiles[0]);  // tie: shorter
  CHECK(metawarp::report::nearest_profile(profiles, true, 90) == &profiles[2]);
  profiles.pop_back();
  CHECK(metawarp::report::nearest_profile(profiles, true, 150) == nullptr);
}
