// Dump files: gzip and plain, file name variants, line-format variants, and
// errors that name file and line.
#include <fstream>
#include <iterator>
#include <string>

#include "catch.hpp"
#include "error_of.hpp"
#include "hand_tree.hpp"
#include "taxonomy/taxonomy.hpp"

using namespace metawarp::taxonomy;
using namespace metawarp::test;

namespace {

// The message of the error that loading `dir` throws.
std::string load_error(const TempDir& dir) {
  return error_of([&] { Taxonomy::load_ncbi(dir.path()); });
}

}  // namespace

TEST_CASE("gzip dumps load like plain ones, in any mix", "[taxonomy][files]") {
  TempDir plain;
  write_text(plain / "nodes.dmp", hand_nodes_dmp());
  write_text(plain / "names.dmp", hand_names_dmp());
  write_text(plain / "merged.dmp", hand_merged_dmp());
  const Taxonomy reference = Taxonomy::load_ncbi(plain.path());

  TempDir gz;
  write_gz(gz / "nodes.dmp.gz", hand_nodes_dmp());
  write_gz(gz / "names.dmp.gz", hand_names_dmp());
  write_gz(gz / "merged.dmp.gz", hand_merged_dmp());
  require_same(Taxonomy::load_ncbi(gz.path()), reference);

  TempDir mixed;
  write_gz(mixed / "nodes.dmp.gz", hand_nodes_dmp());
  write_text(mixed / "names.dmp", hand_names_dmp());
  write_gz(mixed / "merged-2013.dmp.gz", hand_merged_dmp());  // dated name, as NCBI archives
  require_same(Taxonomy::load_ncbi(mixed.path()), reference);
}

TEST_CASE("merged.dmp is optional", "[taxonomy][files]") {
  TempDir dir;
  write_text(dir / "nodes.dmp", hand_nodes_dmp());
  write_text(dir / "names.dmp", hand_names_dmp());
  const Taxonomy t = Taxonomy::load_ncbi(dir.path());
  CHECK(t.merged().empty());
  CHECK(t.resolve(4) == no_taxon);
  CHECK(t.size() == hand_nodes().size());
}

TEST_CASE("line format variants: CRLF, no final separator, blank lines, extra names",
          "[taxonomy][files]") {
  TempDir dir;
  write_text(dir / "nodes.dmp",
             "1\t|\t1\t|\tno rank\t|\r\n"
             "\n"
             "2\t|\t1\t|\tsuperkingdom\r\n"   // no final "\t|"
             "3\t|\t2\t|\tgenus\t|\t\t|\t0\t|\n"
             "4\t|\t3\t|\tspecies\t|");       // no final newline
  write_text(dir / "names.dmp",
             "1\t|\troot\t|\t\t|\tscientific name\t|\r\n"
             "2\t|\tBacteria\t|\tBacteria <bacteria>\t|\tscientific name\t|\n"
             "3\t|\tGenus|with|bars\t|\t\t|\tscientific name\t|\n"  // '|' inside a name
             "77\t|\tnot in nodes\t|\t\t|\tscientific name\t|\n"    // ignored
             "4\t|\tSpecies one\t|\t\t|\tscientific name\t|\n"
             "4\t|\tsecond scientific name\t|\t\t|\tscientific name\t|\n");  // first wins
  const Taxonomy t = Taxonomy::load_ncbi(dir.path());
  REQUIRE(t.size() == 4);
  CHECK(t.find(1)->name == "root");
  CHECK(t.find(2)->name == "Bacteria");
  CHECK(t.find(2)->rank == Rank::superkingdom);
  CHECK(t.find(3)->name == "Genus|with|bars");
  CHECK(t.find(4)->name == "Species one");
  CHECK(t.find(4)->rank == Rank::species);
  CHECK(t.lineage(4) == std::vector<taxid_t>{4, 3, 2, 1});
  CHECK(t.find(77) == nullptr);
}

TEST_CASE("missing dump files are named", "[taxonomy][files]") {
  TempDir dir;
  CHECK(contains(load_error(dir), "nodes.dmp"));
  write_text(dir / "nodes.dmp", hand_nodes_dmp());
  CHECK(contains(load_error(dir), "names.dmp"));
  write_text(dir / "names.dmp", hand_names_dmp());
  write_text(dir / "merged-a.dmp", hand_merged_dmp());
  write_text(dir / "merged-b.dmp", hand_merged_dmp());
  CHECK(contains(load_error(dir), "several merged dumps"));
}

TEST_CASE("malformed lines are errors naming file and line", "[taxonomy][files]") {
  const std::string good_nodes = hand_nodes_dmp();  // 34 lines
  const std::string good_names = hand_names_dmp();

  struct Case {
    const char* file;
    std::string text;
    std::string where;    // "file:line"
    std::string problem;  // part of the message
  };
  const std::vector<Case> cases{
      {"nodes.dmp", good_nodes + "12\t|\t1\n", "nodes.dmp:35:", "expected at least 3 fields"},
      {"nodes.dmp", good_nodes + "12a\t|\t1\t|\tgenus\t|\n", "nodes.dmp:35:", "bad taxid '12a'"},
      {"nodes.dmp", good_nodes + "12\t|\t\t|\tgenus\t|\n", "nodes.dmp:35:", "bad parent taxid"},
      {"nodes.dmp", good_nodes + "0\t|\t1\t|\tgenus\t|\n", "nodes.dmp:35:", "bad taxid '0'"},
      {"nodes.dmp", good_nodes + "99999999999\t|\t1\t|\tgenus\t|\n", "nodes.dmp:35:", "bad taxid"},
      {"nodes.dmp", "1\t|\t1\t|\tno rank\t|\n5\t|\t6\t|\tgenus\t|\n", "nodes.dmp:2:",
       "parent 6 of taxid 5 is not in the taxonomy"},
      {"nodes.dmp", "1\t|\t1\t|\tno rank\t|\n5\t|\t1\t|\tgenus\t|\n5\t|\t1\t|\tspecies\t|\n",
       "nodes.dmp:3:", "taxid 5 appears twice"},
      {"nodes.dmp", "1\t|\t1\t|\tno rank\t|\n10\t|\t11\t|\tgenus\t|\n11\t|\t10\t|\tgenus\t|\n",
       "nodes.dmp:2:", "taxa 10 -> 11 -> 10 form a cycle of parents"},
      {"nodes.dmp", good_nodes + "12\t|\t12\t|\tspecies\t|\n", "nodes.dmp:35:",
       "taxid 12 is its own parent, which only the root (taxid 1) may be"},
      {"names.dmp", good_names + "562\t|\tonly three\t|\t\t|\n", "names.dmp:103:",
       "expected at least 4 fields"},
      {"names.dmp", good_names + "x\t|\tname\t|\t\t|\tscientific name\t|\n", "names.dmp:103:",
       "bad taxid 'x'"},
      {"merged.dmp", "4\t|\t562\t|\n5\t|\n", "merged.dmp:2:", "expected at least 2 fields"},
      {"merged.dmp", "4\t|\t562\t|\n5\t|\tabc\t|\n", "merged.dmp:2:", "bad new taxid 'abc'"},
  };
  for (const bool gz : {false, true}) {
    for (const auto& c : cases) {
      TempDir dir;
      const auto put = [&](const std::string& name, const std::string& text) {
        if (gz)
          write_gz(dir / (name + ".gz"), text);
        else
          write_text(dir / name, text);
      };
      put("nodes.dmp", c.file == std::string("nodes.dmp") ? c.text : good_nodes);
      put("names.dmp", c.file == std::string("names.dmp") ? c.text : good_names);
      if (c.file == std::string("merged.dmp")) put("merged.dmp", c.text);
      const std::string message = load_error(dir);
      INFO(message);
      // The file name (with its .gz suffix) and the line number.
      std::string where = c.where;
      if (gz) where.insert(where.find(".dmp") + 4, ".gz");
      CHECK(contains(message, (dir / "").string()));
      CHECK(contains(message, where));
      CHECK(contains(message, c.problem));
    }
  }
}

TEST_CASE("a truncated gzip dump is an error", "[taxonomy][files]") {
  TempDir dir;
  std::string nodes;
  for (unsigned id = 2; id < 20000; ++id) nodes += nodes_line(id, 1, "species");
  write_gz(dir / "full.gz", nodes_line(1, 1, "no rank") + nodes);
  // Cut the compressed file in the middle.
  std::string bytes;
  {
    std::ifstream in(dir / "full.gz", std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  write_text(dir / "nodes.dmp.gz", bytes.substr(0, bytes.size() / 2));
  write_text(dir / "names.dmp", "");
  const std::string message = load_error(dir);
  INFO(message);
  CHECK(contains(message, "nodes.dmp.gz"));
  CHECK(contains(message, "truncated"));
}

TEST_CASE("gzip dumps: members, padding and trailing data as in the sequence readers",
          "[taxonomy][files]") {
  const std::string nodes = hand_nodes_dmp();
  const std::string half1 = nodes.substr(0, nodes.size() / 2), half2 = nodes.substr(nodes.size() / 2);
  TempDir plain;
  write_text(plain / "nodes.dmp", nodes);
  write_text(plain / "names.dmp", hand_names_dmp());
  const Taxonomy reference = Taxonomy::load_ncbi(plain.path());

  // Several members (bgzip, cat a.gz b.gz), an empty one, zero padding.
  for (const std::string& bytes : {gz_member(half1) + gz_member("") + gz_member(half2),
                                   gz_member(nodes) + std::string(4096, '\0')}) {
    TempDir dir;
    write_text(dir / "nodes.dmp.gz", bytes);
    write_text(dir / "names.dmp", hand_names_dmp());
    require_same(Taxonomy::load_ncbi(dir.path()), reference);
  }
  // Anything else after the last member is an error naming the file and where it starts.
  const std::string good = gz_member(half1) + gz_member(half2);
  for (const std::string& trailing : {std::string("garbage"), std::string(10, '\0') + "\x01"}) {
    TempDir dir;
    write_text(dir / "nodes.dmp.gz", good + trailing);
    write_text(dir / "names.dmp", hand_names_dmp());
    const std::size_t at = good.size() + trailing.find_first_not_of('\0');
    CHECK(load_error(dir) == (dir / "nodes.dmp.gz").string() +
                                 ": unexpected data after the end of the gzip stream (at compressed byte " +
                                 std::to_string(at) + ")");
  }
}

TEST_CASE("a line longer than 1 MiB is an error, not a buffer that grows", "[taxonomy][files]") {
  TempDir dir;
  write_text(dir / "nodes.dmp", nodes_line(1, 1, "no rank") + std::string(3 << 20, 'x') + "\n");
  write_text(dir / "names.dmp", hand_names_dmp());
  CHECK(load_error(dir) == (dir / "nodes.dmp").string() + ":2: line longer than 1048576 bytes");
  // A line at the limit is only too long for its content.
  write_text(dir / "nodes.dmp", nodes_line(1, 1, "no rank") + std::string(1 << 20, '7') + "\r\n");
  CHECK(contains(load_error(dir), (dir / "nodes.dmp").string() + ":2: expected at least 3 fields"));
}

TEST_CASE("a duplicate taxid names both of its lines", "[taxonomy][files]") {
  TempDir dir;
  write_text(dir / "names.dmp", "");
  const std::string nodes = (dir / "nodes.dmp").string();
  // In order, and out of order (the first copy is the earlier line either way).
  write_text(dir / "nodes.dmp", nodes_line(1, 1, "no rank") + nodes_line(5, 1, "genus") +
                                    nodes_line(5, 1, "species"));
  CHECK(load_error(dir) == nodes + ":3: taxid 5 appears twice (also at " + nodes + ":2)");
  write_text(dir / "nodes.dmp", nodes_line(1, 1, "no rank") + nodes_line(7, 1, "genus") +
                                    nodes_line(5, 1, "genus") + "\n" + nodes_line(3, 1, "genus") +
                                    nodes_line(5, 7, "species"));
  CHECK(load_error(dir) == nodes + ":6: taxid 5 appears twice (also at " + nodes + ":3)");
  // Nodes given in memory have no lines to name.
  const auto node = [](taxid_t id) { return Node{id, 1, Rank::none, ""}; };
  REQUIRE_THROWS_WITH(Taxonomy::from_nodes({node(1), node(5), node(5)}),
                      "taxonomy: taxid 5 appears twice");
}
