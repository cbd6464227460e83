// The taxonomy synthesised from GTDB's taxonomy TSV: nodes, ranks, names,
// stable ids, genome accessions, and the errors of a bad file.
#include "catch.hpp"
#include "error_of.hpp"
#include "taxonomy/gtdb.hpp"
#include "temp_files.hpp"

using namespace metawarp::taxonomy;
using namespace metawarp::test;

namespace {

const char* const ecoli =
    "RS_GCF_000005845.2\td__Bacteria;p__Pseudomonadota;c__Gammaproteobacteria;"
    "o__Enterobacterales;f__Enterobacteriaceae;g__Escherichia;s__Escherichia coli\n";
const char* const salmonella =
    "GB_GCA_000006945.2\td__Bacteria;p__Pseudomonadota;c__Gammaproteobacteria;"
    "o__Enterobacterales;f__Enterobacteriaceae;g__Salmonella;s__Salmonella enterica\n";
const char* const archaeon =
    "RS_GCF_000007185.1\td__Archaea;p__Methanobacteriota;c__Methanococci;"
    "o__Methanococcales;f__Methanocaldococcaceae;g__Methanocaldococcus;"
    "s__Methanocaldococcus jannaschii\n";

GtdbTaxonomy load(const TempDir& dir, const std::string& name, const std::string& text) {
  write_text(dir / name, text);
  return GtdbTaxonomy::load({dir / name});
}

}  // namespace

TEST_CASE("GTDB: the tree, ranks and names of the lineages") {
  TempDir dir("gtdb");
  const GtdbTaxonomy gtdb = load(dir, "t.tsv", std::string(ecoli) + salmonella + archaeon);
  // root + Bacteria 7 (shared down to the family, then 2 genera, 2 species) + Archaea 7.
  CHECK(gtdb.taxonomy.size() == 1 + 5 + 2 + 2 + 7);
  const auto coli = gtdb.genomes.find("GCF_000005845.2");
  REQUIRE(coli);
  const auto* species = gtdb.taxonomy.find(*coli);
  REQUIRE(species);
  CHECK(species->name == "Escherichia coli");
  CHECK(species->rank == Rank::species);
  const auto lineage = gtdb.taxonomy.lineage(*coli);
  REQUIRE(lineage.size() == 8);
  CHECK(lineage.back() == metawarp::taxonomy::root_taxon);
  CHECK(gtdb.taxonomy.find(lineage[6])->name == "Bacteria");
  CHECK(gtdb.taxonomy.find(lineage[6])->rank == Rank::domain);
  CHECK(gtdb.taxonomy.find(lineage[1])->rank == Rank::genus);
  for (const auto& node : gtdb.taxonomy.nodes())
    if (node.id != 1) CHECK((node.id >= 1'000'000'000u && node.id <= 0x7fffffffu));
  CHECK(metawarp::taxonomy::is_gtdb_taxonomy(gtdb.taxonomy));
  CHECK(metawarp::taxonomy::taxonomy_source(gtdb.taxonomy).rfind("GTDB", 0) == 0);
  // Salmonella and E. coli share the family, not the genus.
  const taxid_t salmonella_id = *gtdb.genomes.find("GCA_000006945.2");
  CHECK(gtdb.taxonomy.find(gtdb.taxonomy.lca(*coli, salmonella_id))->name ==
        "Enterobacteriaceae");
}

TEST_CASE("GTDB: the same ids whatever the line order or the file split") {
  TempDir dir("gtdb-order");
  const GtdbTaxonomy a = load(dir, "a.tsv", std::string(ecoli) + salmonella + archaeon);
  const GtdbTaxonomy b = load(dir, "b.tsv", std::string(archaeon) + salmonella + ecoli);
  write_text(dir / "c1.tsv", salmonella);
  write_text(dir / "c2.tsv", std::string(archaeon) + ecoli);
  const GtdbTaxonomy c = GtdbTaxonomy::load({dir / "c1.tsv", dir / "c2.tsv"});
  REQUIRE(a.taxonomy.size() == b.taxonomy.size());
  REQUIRE(a.taxonomy.size() == c.taxonomy.size());
  for (std::size_t i = 0; i < a.taxonomy.size(); ++i) {
    CHECK(a.taxonomy.nodes()[i].id == b.taxonomy.nodes()[i].id);
    CHECK(a.taxonomy.nodes()[i].id == c.taxonomy.nodes()[i].id);
    CHECK(a.taxonomy.nodes()[i].name == c.taxonomy.nodes()[i].name);
  }
  // A taxon keeps its id when other taxa are added (a new release).
  const GtdbTaxonomy only = load(dir, "d.tsv", ecoli);
  CHECK(only.genomes.find("GCF_000005845.2") == a.genomes.find("GCF_000005845.2"));
}

TEST_CASE("GTDB: genome accessions, their GCA/GCF twins and file names") {
  TempDir dir("gtdb-genomes");
  const GtdbTaxonomy gtdb = load(dir, "t.tsv", std::string(ecoli) + salmonella);
  CHECK(gtdb.genomes.find("GCA_000005845.2") == gtdb.genomes.find("GCF_000005845.2"));
  CHECK(gtdb.genomes.find("GCF_000006945.2") == gtdb.genomes.find("GCA_000006945.2"));
  CHECK_FALSE(gtdb.genomes.find("GCF_000005845.1"));
  CHECK_FALSE(gtdb.genomes.find("RS_GCF_000005845.2"));
  CHECK(assembly_accession_of_file("refs/GCF_000005845.2_genomic.fna.gz") == "GCF_000005845.2");
  CHECK(assembly_accession_of_file("GCA_000006945.2_ASM694v2_genomic.fna") == "GCA_000006945.2");
  CHECK_FALSE(assembly_accession_of_file("GCF_000005845_genomic.fna"));
  CHECK_FALSE(assembly_accession_of_file("ecoli.fna"));
  CHECK_FALSE(assembly_accession_of_file("dir/GCF_1.2/genome.fna"));
}

TEST_CASE("GTDB: bad lines are errors naming the file and line") {
  TempDir dir("gtdb-bad");
  CHECK(error_of([&] { load(dir, "tab.tsv", std::string(ecoli) + "GCF_1.1 d__Bacteria\n"); })
            .find("tab.tsv:2: expected 'accession<TAB>") != std::string::npos);
  CHECK(error_of([&] { load(dir, "order.tsv", "GCF_1.1\td__Bacteria;c__X;p__Y\n"); })
            .find("order.tsv:1: 'p__Y': unknown rank or out of order") != std::string::npos);
  CHECK(error_of([&] { load(dir, "rank.tsv", "GCF_1.1\td__Bacteria;x__Y\n"); })
            .find("rank.tsv:1:") != std::string::npos);
  CHECK(error_of([&] { load(dir, "prefix.tsv", "GCF_1.1\tBacteria\n"); })
            .find("is not a GTDB rank") != std::string::npos);
  CHECK(error_of([&] {
          load(dir, "twice.tsv",
               std::string("GCF_1.1\td__Bacteria;p__A\n") + "RS_GCF_1.1\td__Bacteria;p__B\n");
        }).find("twice.tsv:2: genome GCF_1.1 has two lineages") != std::string::npos);
  CHECK(error_of([&] { load(dir, "ok.tsv", std::string(ecoli) + "\n" + ecoli); }).empty());
}
