// Real NCBI data from ../shared/data, where present (developer machines and
// device hosts); prints a note and passes where it is absent (CI).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "taxonomy/id_mapping.hpp"
#include "taxonomy/taxonomy.hpp"

using namespace metawarp::taxonomy;
namespace fs = std::filesystem;

namespace {

fs::path refs138() {
  return fs::path(METAWARP_TEST_DATA_DIR) / ".." / ".." / "shared" / "data" / "refs138";
}

bool have(const fs::path& p) {
  std::error_code ec;
  if (fs::exists(p, ec)) return true;
  std::printf("note: %s is absent, test skipped\n", p.string().c_str());
  return false;
}

}  // namespace

namespace {

// manifest.tsv (one row per genome): taxid -> species, genus and family
// taxids as curated there; an empty column means the taxonomy has none (a few
// phages have no genus in the 2014 tree).
struct Expected {
  taxid_t species = no_taxon, genus = no_taxon, family = no_taxon;
};

std::map<taxid_t, Expected> read_manifest(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  std::map<taxid_t, Expected> out;
  const auto number = [](const std::string& s) { return s.empty() ? no_taxon : taxid_t(std::stoul(s)); };
  while (std::getline(in, line)) {
    std::vector<std::string> col;
    std::stringstream fields(line);
    for (std::string f; std::getline(fields, f, '\t');) col.push_back(f);
    if (col.size() < 13) continue;
    out[number(col[3])] = Expected{number(col[7]), number(col[9]), number(col[11])};
  }
  return out;
}

}  // namespace

TEST_CASE("refs138 subset: every mapped target has the manifest's species and genus",
          "[taxonomy][data]") {
  const fs::path dir = refs138() / "taxonomy" / "subset";
  const fs::path map_path = refs138() / "seqid2taxid.map";
  const fs::path manifest_path = refs138() / "manifest.tsv";
  if (!have(dir) || !have(map_path) || !have(manifest_path)) return;

  const Taxonomy t = Taxonomy::load_ncbi(dir);
  CHECK(t.size() > 0);
  CHECK(t.unknown_rank_count() == 0);
  const SeqIdMap map = SeqIdMap::load_seqid2taxid(map_path);
  const auto manifest = read_manifest(manifest_path);
  TaxidResolver resolver(&t);
  resolver.add_seqid_map(map);

  // Independent reading of the two-column map.
  std::ifstream in(map_path);
  std::string line;
  std::size_t rows = 0, without_genus = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string seqid;
    taxid_t taxid = 0;
    if (!(fields >> seqid >> taxid)) continue;
    ++rows;
    INFO(seqid << " -> " << taxid);
    REQUIRE(map.find(seqid) == taxid);
    REQUIRE(resolver.resolve(">" + seqid + " description") == t.resolve(taxid));
    const RankedLineage ranked = t.ranked_lineage(taxid);
    CHECK(ranked.at(CanonicalRank::species) != no_taxon);
    CHECK(ranked.at(CanonicalRank::domain) != no_taxon);
    CHECK(ranked.at(CanonicalRank::root) == root_taxon);
    const auto expected = manifest.find(taxid);
    REQUIRE(expected != manifest.end());
    CHECK(ranked.at(CanonicalRank::species) == expected->second.species);
    CHECK(ranked.at(CanonicalRank::genus) == expected->second.genus);
    CHECK(ranked.at(CanonicalRank::family) == expected->second.family);
    if (ranked.at(CanonicalRank::genus) == no_taxon) ++without_genus;
  }
  CHECK(rows == map.size());
  std::printf("refs138: %zu mapped targets, %zu without a genus in the taxonomy\n", rows,
              without_genus);
}

TEST_CASE("full 2014 NCBI taxonomy: load time and agreement with the subset", "[taxonomy][data]") {
  const fs::path full_dir = refs138() / "taxonomy" / "ncbi-2014-full";
  const fs::path subset_dir = refs138() / "taxonomy" / "subset";
  if (!have(full_dir) || !have(subset_dir)) return;

  const auto start = std::chrono::steady_clock::now();
  const Taxonomy full = Taxonomy::load_ncbi(full_dir);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("loaded %s: %zu taxa, %zu merged ids in %.2f s\n", full_dir.string().c_str(),
              full.size(), full.merged().size(), seconds);
  CHECK(full.size() > 1000000);
  CHECK(full.unknown_rank_count() == 0);

  // The subset is the 2014 tree (plus a few newer taxa): where both have a
  // node, they must agree on everything.
  const Taxonomy subset = Taxonomy::load_ncbi(subset_dir);
  std::size_t shared = 0;
  for (const Node& node : subset.nodes()) {
    const Node* other = full.find(node.id);
    if (!other || other->id != node.id) continue;
    ++shared;
    INFO(node.id);
    CHECK(other->parent == node.parent);
    CHECK(other->rank == node.rank);
    CHECK(other->name == node.name);
    CHECK(full.ranked_lineage(node.id).ids == subset.ranked_lineage(node.id).ids);
  }
  CHECK(shared + 10 >= subset.size());

  // The full tree's subset over the shared taxa equals the given subset there.
  std::vector<taxid_t> ids;
  for (const Node& node : subset.nodes())
    if (const Node* n = full.find(node.id); n && n->id == node.id) ids.push_back(node.id);
  const Taxonomy cut = full.subset_with_ancestors(ids);
  for (const Node& node : cut.nodes()) CHECK(subset.find(node.id) != nullptr);
}
