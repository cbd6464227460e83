// The evidence of a read (the Kraken output's column 5) and --confidence,
// against a brute-force computation with the taxonomy's own LCA, on a random
// database of related genomes: every executor path of the CPU (classify,
// classify_many, hits split into parts) gives the same evidence.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "metawarp/sketch/sketch.hpp"
#include "pipeline/query/classifier.hpp"
#include "sketched_database.hpp"

using namespace metawarp;
using pipeline::Classifier;
using pipeline::ClassifierOptions;
using pipeline::ClassifierScratch;

namespace {

using test::random_dna;

std::string mutate(std::string s, double rate, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  for (char& c : s)
    if (u(rng) < rate) c = "ACGT"[rng() % 4];
  return s;
}

struct Fixture : test::SketchedGenomes {
  Fixture() {
    std::mt19937 rng(15);
    genomes.push_back(random_dna(6000, rng));               // 0: strain 101
    genomes.push_back(mutate(genomes[0], 0.02, rng));       // 1: strain 102
    genomes.push_back(random_dna(6000, rng));               // 2: species 200
    genomes.push_back(mutate(genomes[2], 0.05, rng));       // 3: species 300 (genus 20)
    genomes.push_back(mutate(genomes[1], 0.01, rng));       // 4: species 100 itself
    genomes.push_back(mutate(genomes[0], 0.03, rng));       // 5: unmapped
    sketch({101, 102, 200, 300, 100, taxonomy::no_taxon});
  }
};

const Fixture& fixture() { return test::built_once<Fixture>(); }

struct Read {
  std::string mate1, mate2;
};

std::vector<Read> random_reads(const Fixture& f, std::size_t n, std::mt19937& rng) {
  std::vector<Read> reads;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& g = f.genomes[rng() % f.genomes.size()];
    const std::size_t at = rng() % (g.size() - 450);
    Read r;
    r.mate1 = mutate(g.substr(at, 150), 0.01, rng);
    if (i % 3 != 0) r.mate2 = mutate(g.substr(at + 250, 150), 0.01, rng);
    if (i % 17 == 0) r.mate1 = random_dna(150, rng);
    if (i % 23 == 0) r.mate2 = "ACGT";  // a mate without features
    reads.push_back(r);
  }
  return reads;
}

// Brute force: each mate sketched window by window, every feature looked up,
// its taxon the taxonomy's LCA of its targets' taxa; runs of equal taxa.
struct Evidence {
  std::vector<std::pair<taxonomy::taxid_t, std::uint32_t>> runs;
  std::uint32_t mate1_runs = 0;
};

Evidence brute_force(const db::Database& db, const Read& read) {
  Evidence e;
  int mate = 0;
  for (const std::string* seq : {&read.mate1, &read.mate2}) {
    if (mate++ == 1) e.mate1_runs = std::uint32_t(e.runs.size());
    bool first = true;
    const auto windows = sketch::window_count(seq->size(), db.params.sketch);
    for (std::uint64_t w = 0; w < windows; ++w) {
      sketch::feature_t features[sketch::max_sketch_size];
      const auto n = sketch::sketch_window(seq->data(), seq->size(), w, db.params.sketch, features);
      for (std::uint32_t i = 0; i < n; ++i) {
        taxonomy::taxid_t taxon = taxonomy::no_taxon;
        for (const sketch::Location& loc : db.index.find(features[i]))
          taxon = db.taxonomy.lca(taxon, db.targets[loc.target].taxid);
        if (!first && e.runs.back().first == taxon)
          ++e.runs.back().second;
        else
          e.runs.emplace_back(taxon, 1);
        first = false;
      }
    }
  }
  return e;
}

bool in_clade(const taxonomy::Taxonomy& tax, taxonomy::taxid_t t, taxonomy::taxid_t clade) {
  const auto up = tax.lineage(t);
  return std::find(up.begin(), up.end(), clade) != up.end();
}

}  // namespace

TEST_CASE("evidence: runs of feature taxa equal a brute-force computation") {
  const Fixture& f = fixture();
  ClassifierOptions options;
  options.evidence = true;
  const Classifier classifier(f.db, options);
  ClassifierScratch scratch;
  std::mt19937 rng(2026);
  const std::vector<Read> reads = random_reads(f, 300, rng);
  std::vector<pipeline::ReadResult> many(reads.size());
  classifier.classify_many(reads, many.data(), scratch);
  std::size_t classified = 0, shown = 0;
  for (std::size_t i = 0; i < reads.size(); ++i) {
    CAPTURE(i);
    const pipeline::ReadResult r = classifier.classify(reads[i].mate1, reads[i].mate2, scratch);
    const Evidence want = brute_force(f.db, reads[i]);
    REQUIRE(r.evidence.size() == want.runs.size());
    for (std::size_t j = 0; j < want.runs.size(); ++j) {
      CHECK(r.evidence[j].taxon == want.runs[j].first);
      CHECK(r.evidence[j].count == want.runs[j].second);
    }
    CHECK(r.mate1_runs == (reads[i].mate2.empty() ? want.runs.size() : want.mate1_runs));
    // classify_many gives the same.
    CHECK(many[i].evidence.size() == r.evidence.size());
    CHECK(many[i].mate1_runs == r.mate1_runs);
    CHECK(many[i].assignment.taxid == r.assignment.taxid);
    // A classified read's clade is supported by its evidence.
    if (r.assignment.taxid != 0) {
      ++classified;
      bool any = false;
      for (const auto& run : r.evidence)
        any = any || (run.taxon != 0 && in_clade(f.db.taxonomy, run.taxon, r.assignment.taxid));
      CHECK(any);
      for (const auto& run : r.evidence) shown += run.taxon == r.assignment.taxid;
    }
  }
  CHECK(classified > 200);
  CHECK(shown > 0);
}

TEST_CASE("evidence: hits gathered part by part give the evidence of the whole") {
  const Fixture& f = fixture();
  ClassifierOptions options;
  options.confidence_millionths = 400000;
  const Classifier classifier(f.db, options);
  ClassifierScratch scratch;
  std::mt19937 rng(77);
  for (const Read& read : random_reads(f, 100, rng)) {
    const pipeline::ReadResult whole = classifier.classify(read.mate1, read.mate2, scratch);
    std::vector<sketch::feature_t> features;
    std::vector<std::uint32_t> positions;
    const pipeline::ReadShape shape =
        classifier.sketch_read(read.mate1, read.mate2, features, positions);
    // Three parts by feature value, as the partitioned query cuts them, each
    // appending its features' lists (pipeline::BatchHits): the lists lie in
    // part order, not in the read's feature order.
    const std::uint64_t cuts[] = {0x55555555u, 0xaaaaaaaau, std::uint64_t(1) << 32};
    std::vector<sketch::Location> hits;
    std::vector<std::pair<std::size_t, std::size_t>> where(features.size());  // start, size
    std::uint64_t begin = 0;
    for (const std::uint64_t end : cuts) {
      for (std::size_t i = 0; i < features.size(); ++i) {
        if (features[i] < begin || features[i] >= end) continue;
        const auto list = f.db.index.find(features[i]);
        where[i] = {hits.size(), list.size()};
        hits.insert(hits.end(), list.begin(), list.end());
      }
      begin = end;
    }
    std::vector<std::span<const sketch::Location>> lists;
    for (const auto& [start, size] : where) lists.push_back(std::span(hits).subspan(start, size));
    const pipeline::ReadResult split = classifier.decide_features(lists, features, positions, shape, scratch);
    CHECK(split.assignment.taxid == whole.assignment.taxid);
    REQUIRE(split.evidence.size() == whole.evidence.size());
    for (std::size_t j = 0; j < whole.evidence.size(); ++j) {
      CHECK(split.evidence[j].taxon == whole.evidence[j].taxon);
      CHECK(split.evidence[j].count == whole.evidence[j].count);
    }
  }
}

TEST_CASE("confidence: the call's clade holds F of the features, no lower taxon does") {
  const Fixture& f = fixture();
  std::mt19937 rng(5);
  const std::vector<Read> reads = random_reads(f, 200, rng);
  ClassifierOptions plain_options;
  plain_options.evidence = true;
  const Classifier plain(f.db, plain_options);
  ClassifierScratch scratch;
  for (const std::uint32_t millionths : {1u, 300000u, 700000u, 950000u, 1000000u}) {
    ClassifierOptions options;
    options.confidence_millionths = millionths;
    const Classifier strict(f.db, options);
    std::size_t dropped = 0;
    for (const Read& read : reads) {
      const auto base = plain.classify(read.mate1, read.mate2, scratch);
      const auto r = strict.classify(read.mate1, read.mate2, scratch);
      std::uint64_t total = 0;
      for (const auto& run : base.evidence) total += run.count;
      const auto clade = [&](taxonomy::taxid_t t) {
        std::uint64_t sum = 0;
        for (const auto& run : base.evidence)
          if (run.taxon != 0 && in_clade(f.db.taxonomy, run.taxon, t)) sum += run.count;
        return sum;
      };
      if (base.assignment.taxid == 0) {
        CHECK(r.assignment.taxid == 0);
        continue;
      }
      CAPTURE(millionths, base.assignment.taxid, r.assignment.taxid);
      if (r.assignment.taxid == 0) {
        ++dropped;
        CHECK(clade(1) * 1000000 < std::uint64_t(millionths) * total);
        continue;
      }
      CHECK(in_clade(f.db.taxonomy, base.assignment.taxid, r.assignment.taxid));
      CHECK(clade(r.assignment.taxid) * 1000000 >= std::uint64_t(millionths) * total);
      // Every taxon strictly between the call and the result falls short.
      for (taxonomy::taxid_t t : f.db.taxonomy.lineage(base.assignment.taxid)) {
        if (t == r.assignment.taxid) break;
        CHECK(clade(t) * 1000000 < std::uint64_t(millionths) * total);
      }
    }
    if (millionths == 1000000u) CHECK(dropped > 0);  // reads with an error's feature
  }
}

TEST_CASE("minimum hit groups: a call needs N of the read's features in the database") {
  // Kraken2's --minimum-hit-groups voids a call made from fewer minimizer hit
  // groups; metawarp's are the read's features with a feature taxon.
  const Fixture& f = fixture();
  std::mt19937 rng(30);
  const std::vector<Read> reads = random_reads(f, 200, rng);
  ClassifierOptions plain_options;
  plain_options.evidence = true;
  const Classifier plain(f.db, plain_options);
  ClassifierScratch scratch;
  for (const std::uint32_t groups : {1u, 2u, 8u, 20u, 40u}) {
    for (const std::uint32_t millionths : {0u, 600000u}) {
      ClassifierOptions options;
      options.minimum_hit_groups = groups;
      options.confidence_millionths = millionths;
      ClassifierOptions confident_options = plain_options;
      confident_options.confidence_millionths = millionths;
      const Classifier strict(f.db, options);
      const Classifier confident(f.db, confident_options);
      std::size_t voided = 0;
      for (const Read& read : reads) {
        const auto base = confident.classify(read.mate1, read.mate2, scratch);
        const auto r = strict.classify(read.mate1, read.mate2, scratch);
        std::uint32_t in_database = 0;
        for (const auto& run : base.evidence)
          if (run.taxon != 0) in_database += run.count;
        CAPTURE(groups, millionths, in_database, base.assignment.taxid);
        const bool enough = in_database >= groups;
        CHECK(r.assignment.taxid == (enough ? base.assignment.taxid : 0));
        voided += !enough && base.assignment.taxid != 0;
      }
      if (groups == 1) CHECK(voided == 0);  // a call always has a feature in the database
      if (groups == 40) CHECK(voided > 0);
    }
  }
}
