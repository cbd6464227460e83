// The CPU classifier on a hand-built database: random targets sketched here,
// reads cut from them, taxa worked out by hand.
#include <random>
#include <stdexcept>
#include <string>

#include "catch.hpp"
#include "db/reference_bases.hpp"
#include "metawarp/classify/matched_bases.hpp"
#include "metawarp/sketch/sketch.hpp"
#include "pipeline/build/build.hpp"
#include "pipeline/query/classifier.hpp"
#include "sketched_database.hpp"

using namespace metawarp;
using pipeline::Classifier;
using pipeline::ClassifierOptions;
using pipeline::ClassifierScratch;
using taxonomy::CanonicalRank;
using taxonomy::Rank;

namespace {

using test::random_dna;

std::string reverse_complement(std::string s) {
  std::reverse(s.begin(), s.end());
  for (char& c : s) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
  return s;
}

struct Fixture : test::SketchedGenomes {
  Fixture() {
    std::mt19937 rng(7);
    genomes.push_back(random_dna(5000, rng));        // 0: strain 101 of species 100
    genomes.push_back(random_dna(5000, rng));        // 1: species 200
    genomes.push_back(genomes[0].substr(0, 3000));   // 2: species 100, shares 0's start
    sketch({101, 200, 100});
  }
};

const Fixture& fixture() { return test::built_once<Fixture>(); }

}  // namespace

TEST_CASE("classifier: reads land on their target's taxon") {
  const auto& f = fixture();
  Classifier classifier(f.db, {});
  ClassifierScratch scratch;
  CHECK(classifier.hit_min(false) == 16 / 3);
  CHECK(classifier.hit_min(true) == 16 / 2);
  // Content-defined sampling: 2 hits for single reads and pairs alike (the
  // matched-bases rule keeps out the chance pairs; issue 26).
  for (const auto sampling : {sketch::Sampling::minimizer, sketch::Sampling::scaled}) {
    const sketch::SketchParams p = sketch::default_sketch_params(sampling, 16);
    CHECK(pipeline::auto_hit_min(p, false) == 2);
    CHECK(pipeline::auto_hit_min(p, true) == 2);
  }

  // Unique to target 1.
  auto r = classifier.classify(f.genomes[1].substr(1000, 150), {}, scratch);
  CHECK(r.assignment.taxid == 200);
  REQUIRE(r.candidate_count >= 1);
  CHECK(r.top[0].target == 1);
  CHECK(r.windows == 2);  // 135 k-mers, stride 112

  // Reverse strand of target 0's private end.
  r = classifier.classify(reverse_complement(f.genomes[0].substr(4000, 150)), {}, scratch);
  CHECK(r.assignment.taxid == 101);

  // Shared by targets 0 and 2: equal hits, LCA is species 100.
  r = classifier.classify(f.genomes[0].substr(500, 150), {}, scratch);
  REQUIRE(r.candidate_count >= 2);
  CHECK(r.top[0].hits == r.top[1].hits);
  CHECK(r.top[0].target == 0);  // tie: lower target id first
  CHECK(r.top[1].target == 2);
  CHECK(r.assignment.taxid == 100);

  // Random sequence, too short, empty: unclassified.
  std::mt19937 rng(99);
  CHECK(classifier.classify(random_dna(150, rng), {}, scratch).assignment.taxid == 0);
  r = classifier.classify("ACGTACGT", {}, scratch);
  CHECK(r.assignment.taxid == 0);
  CHECK(r.windows == 0);
  CHECK(classifier.classify("", {}, scratch).assignment.taxid == 0);
}

TEST_CASE("classifier: pairs add both mates' hits within one range") {
  const auto& f = fixture();
  Classifier classifier(f.db, {});
  ClassifierScratch scratch;
  const std::string m1 = f.genomes[1].substr(2000, 150);
  // Fragment 2000..2250: windows 17..19, inside the default span of
  // (150 + 150) / 112 + 2 = 4 windows.
  const std::string m2 = reverse_complement(f.genomes[1].substr(2100, 150));
  const auto single1 = classifier.classify(m1, {}, scratch);
  const auto single2 = classifier.classify(m2, {}, scratch);
  const auto pair = classifier.classify(m1, m2, scratch);
  CHECK(pair.assignment.taxid == 200);
  CHECK(pair.windows == single1.windows + single2.windows);
  CHECK(pair.hits == single1.hits + single2.hits);
  CHECK(pair.top[0].hits == single1.top[0].hits + single2.top[0].hits);

  // Mates far apart on the target do not share a range unless the insert
  // size says they may.
  const std::string far = reverse_complement(f.genomes[1].substr(4500, 150));
  const auto apart = classifier.classify(m1, far, scratch);
  CHECK(apart.top[0].hits < single1.top[0].hits + classifier.classify(far, {}, scratch).top[0].hits);
  ClassifierOptions wide;
  wide.insert_size = 3000;
  Classifier wide_classifier(f.db, wide);
  const auto together = wide_classifier.classify(m1, far, scratch);
  CHECK(together.top[0].hits == single1.top[0].hits + classifier.classify(far, {}, scratch).top[0].hits);
}

TEST_CASE("classifier: options") {
  const auto& f = fixture();
  ClassifierScratch scratch;
  const std::string unique0 = f.genomes[0].substr(4000, 150);

  ClassifierOptions o;
  o.lowest = CanonicalRank::species;
  CHECK(Classifier(f.db, o).classify(unique0, {}, scratch).assignment.taxid == 100);
  o.lowest = CanonicalRank::genus;
  CHECK(Classifier(f.db, o).classify(unique0, {}, scratch).assignment.taxid == 10);

  o = {};
  o.max_candidates = 1;  // the shared read now sees only target 0
  CHECK(Classifier(f.db, o).classify(f.genomes[0].substr(500, 150), {}, scratch)
            .assignment.taxid == 101);

  o = {};
  o.hit_min = 1000;
  CHECK(Classifier(f.db, o).classify(unique0, {}, scratch).assignment.taxid == 0);

  o = {};
  o.max_candidates = 0;
  CHECK_THROWS_AS(Classifier(f.db, o), std::invalid_argument);
  o.max_candidates = 17;
  CHECK_THROWS_AS(Classifier(f.db, o), std::invalid_argument);
  o = {};
  o.lowest = CanonicalRank::genus;
  o.highest = CanonicalRank::species;
  CHECK_THROWS_AS(Classifier(f.db, o), std::invalid_argument);
}

TEST_CASE("classifier: target lineages") {
  const auto lineages = pipeline::target_lineages(fixture().db);
  REQUIRE(lineages.size() == 3);
  // target 0: strain 101 -> species 100 -> genus 10 -> root 1
  CHECK(lineages[0].ids[0] == 101);
  CHECK(lineages[0].ids[std::size_t(CanonicalRank::species)] == 100);
  CHECK(lineages[0].ids[std::size_t(CanonicalRank::genus)] == 10);
  CHECK(lineages[0].ids[std::size_t(CanonicalRank::root)] == 1);
  CHECK(lineages[2].ids[0] == 100);
}

// A database of the default sampling (minimizers) and one species, 100,
// with no targets yet (test::sketch_targets adds them).
db::Database minimizer_species_database() {
  db::Database db;
  db.params = pipeline::BuildOptions{}.params;
  REQUIRE(db.params.sketch.sampling == sketch::Sampling::minimizer);
  db.taxonomy = taxonomy::Taxonomy::from_nodes({
      {1, 1, Rank::none, "root"},
      {100, 1, Rank::species, "G a"},
  });
  return db;
}

// A read's feature counts at most once per candidate (as Kraken2 counts a
// read's k-mers): a target that holds the read's bases twice, one window
// apart (a repeat, or a chance k-mer met twice), gets each feature once, not
// twice. The database is the default's sampling (minimizers), where a read's
// sampled k-mers are sampled at both copies.
TEST_CASE("classifier: a feature in two windows of a target within the span counts once") {
  std::mt19937 rng(26);
  db::Database db = minimizer_species_database();
  const std::uint64_t stride = db.params.sketch.stride();
  const std::string unit = test::random_dna(60, rng);
  // The unit at 10 (window 0) and at 10 + stride (window 1), random between.
  std::string genome = test::random_dna(10, rng) + unit;
  genome += test::random_dna(stride - unit.size(), rng) + unit + test::random_dna(400, rng);
  test::sketch_targets(db, {genome}, {100});
  const Classifier classifier(db, {});
  ClassifierScratch scratch;
  std::vector<sketch::feature_t> features;
  std::vector<std::uint32_t> positions;
  const pipeline::ReadShape shape = classifier.sketch_read(unit, {}, features, positions);
  REQUIRE(features.size() >= 2);
  REQUIRE(shape.span >= 2);  // both copies fit in one range
  for (const sketch::feature_t f : features) REQUIRE(db.index.find(f).size() == 2);

  const auto r = classifier.classify(unit, {}, scratch);
  REQUIRE(r.candidate_count == 1);
  CHECK(r.top[0].hits == features.size());
  CHECK(r.hits == features.size());
  CHECK(r.assignment.taxid == 100);

  // One feature alone, its two locations one window apart: hits 1, not 2;
  // two locations span windows apart can never share a range: both count.
  const sketch::Location near[] = {{0, 3}, {0, 4}};
  const sketch::Location far[] = {{0, 3}, {0, 3 + shape.span}};
  const std::span<const sketch::Location> one_near[] = {near};
  const std::span<const sketch::Location> one_far[] = {far};
  classify::Candidate top[classify::max_candidates_limit];
  auto d = classifier.decide(one_near, shape, scratch, top);
  CHECK(d.hits == 1);
  CHECK(d.top[0].hits == 1);
  d = classifier.decide(one_far, shape, scratch, top);
  CHECK(d.hits == 2);
  CHECK(d.top[0].hits == 1);
  // The same location from two features (two of the read's k-mers): two hits.
  const std::span<const sketch::Location> two[] = {std::span(near, 1), std::span(near, 1)};
  CHECK(classifier.decide(two, shape, scratch, top).top[0].hits == 2);
}

TEST_CASE("classifier: each feature's read position, mate 2's after mate 1's bases") {
  std::mt19937 rng(26);
  db::Database db = minimizer_species_database();
  const std::string genome = test::random_dna(3000, rng);
  test::sketch_targets(db, {genome}, {100});
  const Classifier classifier(db, {});
  // A fragment of 370 bases: both mates within one candidate range.
  const std::string mate1 = genome.substr(100, 150), mate2 = genome.substr(350, 120);
  std::vector<sketch::feature_t> features;
  std::vector<std::uint32_t> positions;
  const pipeline::ReadShape shape = classifier.sketch_read(mate1, mate2, features, positions);
  REQUIRE(positions.size() == features.size());
  REQUIRE(shape.mate1_features > 0);
  REQUIRE(shape.mate1_features < features.size());
  CHECK(shape.bases == 270);
  const std::uint32_t k = db.params.sketch.k;
  for (std::size_t i = 0; i < features.size(); ++i) {
    CAPTURE(i);
    const bool second = i >= shape.mate1_features;
    const std::string& mate = second ? mate2 : mate1;
    const std::uint32_t at = positions[i] - (second ? 150 : 0);
    REQUIRE(positions[i] >= (second ? 150u : 0u));
    REQUIRE(at + k <= mate.size());
    sketch::CanonicalRoller roller(k);
    sketch::kmer_t canonical = 0;
    for (std::uint32_t b = at; b < at + k; ++b) roller.push(sketch::encode_base(mate[b]), canonical);
    CHECK(sketch::sampled_feature(canonical) == features[i]);
  }
  // Both mates match the genome over most of their bases: the call stands.
  ClassifierScratch scratch;
  const auto r = classifier.classify(mate1, mate2, scratch);
  CHECK(r.match.matched > 200);
  CHECK(r.match.matched <= 270);
  CHECK(r.match.needed > 0);
  CHECK(r.assignment.taxid == 100);
}

TEST_CASE("classifier: the needed matched bases, from the table of short reads and beyond it") {
  std::mt19937 rng(27);
  db::Database db = minimizer_species_database();
  test::sketch_targets(db, {test::random_dna(3000, rng)}, {100});
  const std::uint64_t g = db::reference_bases(db.targets);
  REQUIRE(g == 3000);
  const Classifier classifier(db, {});
  for (const std::uint64_t bases : {0u, 1u, 150u, 300u, 1023u, 1024u, 5000u})
    CHECK(classifier.needed_bases(bases) ==
          classify::min_matched_bases(std::uint32_t(bases), g, classify::chance_calls_one_in));
  ClassifierOptions fixed;
  fixed.match_min = 40;
  CHECK(Classifier(db, fixed).needed_bases(150) == 40);
}
