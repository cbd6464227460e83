// The taxonomy loaders on any bytes: nodes.dmp, names.dmp and merged.dmp
// (Taxonomy::load_ncbi), a seqid2taxid map and an accession2taxid table,
// written to a folder, each plain or gzip. A taxonomy that loads is walked:
// every lineage ends at the root (taxid 1), an LCA lies on both lineages.
//
// Input: one option byte (which files are gzip, whether merged.dmp is there),
// then up to five files separated by lines "=====": nodes, names, merged,
// seqid2taxid, accession2taxid.
#include <algorithm>
#include <filesystem>
#include <optional>
#include <unordered_set>

#include "fuzz_harness.hpp"
#include "taxonomy/id_mapping.hpp"
#include "taxonomy/taxonomy.hpp"
#include "temp_files.hpp"

using namespace metawarp;
using taxonomy::taxid_t;
namespace fs = std::filesystem;

namespace {

bool on_lineage(const std::vector<taxid_t>& lineage, taxid_t id) {
  return std::find(lineage.begin(), lineage.end(), id) != lineage.end();
}

void walk(const taxonomy::Taxonomy& tree) {
  const auto& nodes = tree.nodes();
  for (const auto& node : nodes) {
    const std::vector<taxid_t> lineage = tree.lineage(node.id);
    if (lineage.empty() || lineage.front() != node.id || lineage.size() > nodes.size())
      fuzz::report_bug("lineage of taxid " + std::to_string(node.id));
    // One root, taxid 1: a taxon that is its own parent would cut its taxa
    // off the tree (issue 25, case 10).
    const taxid_t root = lineage.back();
    if (root != taxonomy::root_taxon || tree.find(root)->parent != root)
      fuzz::report_bug("lineage of taxid " + std::to_string(node.id) + " ends at " +
                       std::to_string(root) + ", not at the root (taxid 1)");
    tree.ranked_lineage(node.id);
  }
  for (std::size_t i = 0; i + 1 < nodes.size() && i < 64; ++i) {
    const taxid_t a = nodes[i].id, b = nodes[nodes.size() - 1 - i].id;
    const taxid_t lca = tree.lca(a, b);
    if (lca != taxonomy::no_taxon &&
        (!on_lineage(tree.lineage(a), lca) || !on_lineage(tree.lineage(b), lca)))
      fuzz::report_bug("lca of " + std::to_string(a) + " and " + std::to_string(b));
  }
  for (const auto& [from, to] : tree.merged()) tree.resolve(from);
}

// A folder of its own for this process, emptied for each input.
const test::TempDir& folder() {
  static const test::TempDir dir;
  return dir;
}

fs::path put(const std::string& name, const std::string& text, bool gzip) {
  const fs::path path = folder() / (gzip ? name + ".gz" : name);
  if (gzip)
    test::write_text(path, test::gz_member(text));
  else
    test::write_text(path, text);
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::InputBytes input(data, size);
  const std::uint8_t options = input.option();
  const auto gzip = [&](int file) { return ((options >> file) & 1) != 0; };
  for (const auto& entry : fs::directory_iterator(folder().path())) fs::remove(entry.path());

  put("nodes.dmp", input.file(), gzip(0));
  put("names.dmp", input.file(), gzip(1));
  const std::string merged = input.file();
  if ((options & 0x80) == 0) put("merged.dmp", merged, gzip(2));
  const fs::path seqids = put("seqid2taxid.map", input.file(), gzip(3));
  const fs::path accessions = put("nucl.accession2taxid", input.file(), gzip(4));

  std::optional<taxonomy::Taxonomy> tree;
  fuzz::documented_error_of([&] { tree = taxonomy::Taxonomy::load_ncbi(folder().path()); });
  if (tree) walk(*tree);

  taxonomy::TaxidResolver resolver(tree ? &*tree : nullptr);
  std::unordered_set<std::string> wanted;
  fuzz::documented_error_of([&] {
    taxonomy::SeqIdMap map = taxonomy::SeqIdMap::load_seqid2taxid(seqids);
    resolver.add_seqid_map(std::move(map));
  });
  for (const char* id : {"NC_000913.3", "seq1", "A00001", "gi|1|ref|NC_000001.1|"})
    wanted.insert(id);
  fuzz::documented_error_of([&] {
    resolver.add_accession_map(taxonomy::AccessionMap::load_accession2taxid({accessions}, wanted));
  });
  for (const std::string& id : wanted) resolver.resolve(">" + id + " taxid|562");
  return 0;
}

std::vector<std::string> fuzz_seeds() {
  const std::string nodes =
      test::nodes_line(1, 1, "no rank") + test::nodes_line(2, 1, "superkingdom") +
      test::nodes_line(561, 2, "genus") + test::nodes_line(562, 561, "species") +
      test::nodes_line(83333, 562, "strain") + "3\t|\t2\t|\tclade\t|\r\n";
  const std::string names = test::names_line(1, "root", "scientific name") +
                            test::names_line(2, "Bacteria", "scientific name") +
                            test::names_line(562, "Escherichia coli", "scientific name") +
                            test::names_line(562, "E. coli", "synonym") +
                            test::names_line(561, "Escherichia|with|bars", "scientific name");
  const std::string merged = test::merged_line(4, 562) + test::merged_line(5, 4);
  const std::string seqids = "NC_000913.3\t562\nseq1 83333\n\ngi|1|ref|NC_000001.1|\t2\n";
  const std::string accessions =
      "accession\taccession.version\ttaxid\tgi\nA00001\tA00001.1\t561\t7\n"
      "NC_000913\tNC_000913.3\t562\t8\n";
  const std::vector<std::string> good = {nodes, names, merged, seqids, accessions};
  // The option byte 0 (every file plain, merged.dmp there): "\x00" as a C
  // string would be no byte at all.
  const std::string plain(1, '\0');
  return {
      fuzz::make_input(plain, good),
      fuzz::make_input("\x1f", good),  // all gzip
      fuzz::make_input("\x80", good),  // no merged.dmp
      fuzz::make_input(plain,
                       {nodes + test::nodes_line(562, 1, "genus"), names, "", "a\t1\nb\n", ""}),
      fuzz::make_input(plain,
                       {test::nodes_line(1, 1, "no rank") + test::nodes_line(10, 11, "genus") +
                            test::nodes_line(11, 10, "genus"),
                        names, merged, seqids, accessions}),
      fuzz::make_input(plain, {nodes + test::nodes_line(7, 7, "species") +
                                    test::nodes_line(8, 7, "strain"),
                                names, merged, seqids, accessions}),  // a second root
      fuzz::make_input("\x02", {nodes, names + "562\t|\tonly three\t|\t\t|\n", "4\t|\tabc\t|\n",
                                "x\t0\n", "NC_1\tNC_1.1\n"}),
  };
}
