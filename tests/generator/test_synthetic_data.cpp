// Checks the committed synthetic set in test_data/ (written by tools/generate_synthetic)
// independently of the generator: NCBI dump format and tree shape, seqid map against the
// FASTA records, FASTQ against the truth table, and every pair found by brute force in the
// genome the truth names (random pairs in none).

#include "catch.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kData = METAWARP_TEST_DATA_DIR;
constexpr std::size_t kReadLength = 150;

std::vector<std::string> lines_of(const fs::path& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> split(const std::string& text, const std::string& separator) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t hit; (hit = text.find(separator, start)) != std::string::npos;) {
    fields.push_back(text.substr(start, hit - start));
    start = hit + separator.size();
  }
  fields.push_back(text.substr(start));
  return fields;
}

struct Node {
  std::uint64_t parent;
  std::string rank;
};

// NCBI dump lines end in "\t|"; fields are separated by "\t|\t".
std::vector<std::string> dump_fields(const std::string& line) {
  REQUIRE(line.size() >= 2);
  REQUIRE(line.substr(line.size() - 2) == "\t|");
  return split(line.substr(0, line.size() - 2), "\t|\t");
}

std::map<std::uint64_t, Node> load_nodes() {
  std::map<std::uint64_t, Node> nodes;
  for (const auto& line : lines_of(kData / "taxonomy" / "nodes.dmp")) {
    const auto fields = dump_fields(line);
    REQUIRE(fields.size() == 13);
    const auto taxid = std::stoull(fields[0]);
    REQUIRE(nodes.count(taxid) == 0);
    nodes[taxid] = {std::stoull(fields[1]), fields[2]};
  }
  return nodes;
}

std::map<std::string, std::string> load_genomes() {
  std::map<std::string, std::string> records;
  for (const auto& entry : fs::directory_iterator(kData / "genomes")) {
    REQUIRE(entry.path().extension() == ".fna");
    std::string id;
    for (const auto& line : lines_of(entry.path())) {
      if (!line.empty() && line[0] == '>') {
        id = line.substr(1, line.find(' ') - 1);
        REQUIRE(records.count(id) == 0);
        records[id];
      } else {
        REQUIRE(!id.empty());
        REQUIRE(line.size() <= 80);
        REQUIRE(line.find_first_not_of("ACGTN") == std::string::npos);
        records[id] += line;
      }
    }
  }
  return records;
}

std::string reverse_complement(const std::string& s) {
  std::string out(s.rbegin(), s.rend());
  for (auto& c : out) {
    c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : c == 'T' ? 'A' : 'N';
  }
  return out;
}

struct Hit {
  std::size_t mismatches = SIZE_MAX;
  std::size_t offset = 0;
};

// Best ungapped placement of `read` in `text`, giving up on an offset past `limit` mismatches.
Hit best_placement(const std::string& read, const std::string& text, std::size_t limit) {
  Hit best;
  for (std::size_t offset = 0; offset + read.size() <= text.size(); ++offset) {
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < read.size() && mismatches <= limit; ++i) {
      mismatches += read[i] != text[offset + i];
    }
    if (mismatches < best.mismatches) best = {mismatches, offset};
  }
  return best;
}

struct Pair {
  std::string name, r1, r2;
};

std::vector<Pair> load_pairs() {
  const auto one = lines_of(kData / "reads_R1.fq");
  const auto two = lines_of(kData / "reads_R2.fq");
  REQUIRE(one.size() == two.size());
  REQUIRE(one.size() % 4 == 0);
  std::vector<Pair> pairs;
  for (std::size_t i = 0; i < one.size(); i += 4) {
    // Built by appending: GCC 12 warns (-Wrestrict, a false positive) on "r" + to_string().
    std::string name = "r";
    name += std::to_string(i / 4 + 1);
    REQUIRE(one[i] == "@" + name + "/1");
    REQUIRE(two[i] == "@" + name + "/2");
    for (const auto* file : {&one, &two}) {
      REQUIRE((*file)[i + 1].size() == kReadLength);
      REQUIRE((*file)[i + 2] == "+");
      REQUIRE((*file)[i + 3].size() == kReadLength);
      for (char q : (*file)[i + 3]) REQUIRE((q >= '!' && q <= 'J'));
    }
    pairs.push_back({name, one[i + 1], two[i + 1]});
  }
  return pairs;
}

}  // namespace

TEST_CASE("synthetic taxonomy is an NCBI dump of a ranked tree") {
  const auto nodes = load_nodes();
  REQUIRE(nodes.at(1).parent == 1);
  REQUIRE(nodes.at(1).rank == "no rank");
  const std::vector<std::string> ranks{"no rank", "superkingdom", "phylum", "class", "order",
                                       "family",  "genus",        "species", "strain"};
  std::map<std::string, int> per_rank;
  for (const auto& [taxid, node] : nodes) {
    ++per_rank[node.rank];
    if (taxid == 1) continue;
    CHECK(taxid >= 1000000);
    REQUIRE(nodes.count(node.parent) == 1);
    const auto rank = std::find(ranks.begin(), ranks.end(), node.rank);
    const auto parent_rank = std::find(ranks.begin(), ranks.end(), nodes.at(node.parent).rank);
    REQUIRE(rank != ranks.end());
    CHECK(parent_rank + 1 == rank);
  }
  CHECK(per_rank["genus"] >= 2);
  CHECK(per_rank["species"] > per_rank["genus"]);
  CHECK(per_rank["strain"] > per_rank["species"]);

  std::set<std::uint64_t> named;
  for (const auto& line : lines_of(kData / "taxonomy" / "names.dmp")) {
    const auto fields = dump_fields(line);
    REQUIRE(fields.size() == 4);
    CHECK(fields[2].empty());
    CHECK(fields[3] == "scientific name");
    CHECK(!fields[1].empty());
    named.insert(std::stoull(fields[0]));
  }
  CHECK(named.size() == nodes.size());
  for (const auto& [taxid, node] : nodes) CHECK(named.count(taxid) == 1);
}

TEST_CASE("synthetic seqid map covers exactly the FASTA records, with strain taxids") {
  const auto nodes = load_nodes();
  const auto genomes = load_genomes();
  std::set<std::string> mapped;
  for (const auto& line : lines_of(kData / "seqid2taxid.map")) {
    const auto fields = split(line, "\t");
    REQUIRE(fields.size() == 2);
    REQUIRE(genomes.count(fields[0]) == 1);
    CHECK(nodes.at(std::stoull(fields[1])).rank == "strain");
    mapped.insert(fields[0]);
  }
  CHECK(mapped.size() == genomes.size());
}

TEST_CASE("synthetic reads come from the genome their truth names") {
  const auto nodes = load_nodes();
  const auto genomes = load_genomes();
  std::map<std::string, std::uint64_t> record_taxid;
  for (const auto& line : lines_of(kData / "seqid2taxid.map")) {
    const auto fields = split(line, "\t");
    record_taxid[fields[0]] = std::stoull(fields[1]);
  }
  const auto pairs = load_pairs();
  const auto truth = lines_of(kData / "truth.tsv");
  REQUIRE(truth.at(0) == "read_id\ttaxid\tspecies_taxid\tgenus_taxid\ttarget");
  REQUIRE(truth.size() == pairs.size() + 1);

  std::size_t random_pairs = 0;
  std::size_t checked = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto fields = split(truth[i + 1], "\t");
    REQUIRE(fields.size() == 5);
    REQUIRE(fields[0] == pairs[i].name);
    const auto taxid = std::stoull(fields[1]);
    const auto species = std::stoull(fields[2]);
    const auto genus = std::stoull(fields[3]);
    if (taxid == 0) {
      ++random_pairs;
      CHECK(species == 0);
      CHECK(genus == 0);
      // No genome should hold a random read: best placement must be far from a match.
      for (const auto& [id, sequence] : genomes) {
        for (const auto& strand : {sequence, reverse_complement(sequence)}) {
          CHECK(best_placement(pairs[i].r1, strand, 60).mismatches > 60);
        }
      }
      continue;
    }
    CHECK(nodes.at(taxid).parent == species);
    CHECK(nodes.at(species).parent == genus);
    REQUIRE(record_taxid.at(fields[4]) == taxid);
    if (i % 10 != 0) continue;  // brute-force placement of a sample keeps the test fast

    // R1 opens the fragment and R2 reverse-complemented closes it, on one strand.
    const auto& record = genomes.at(fields[4]);
    const std::string r2 = reverse_complement(pairs[i].r2);
    bool placed = false;
    for (const auto& strand : {record, reverse_complement(record)}) {
      const Hit first = best_placement(pairs[i].r1, strand, 15);
      const Hit second = best_placement(r2, strand, 15);
      if (first.mismatches > 15 || second.mismatches > 15) continue;
      const auto fragment = static_cast<long long>(second.offset + kReadLength) -
                            static_cast<long long>(first.offset);
      CHECK(fragment >= static_cast<long long>(kReadLength));
      CHECK(fragment <= 400 + 6 * 50);
      placed = true;
    }
    CHECK(placed);
    ++checked;
  }
  CHECK(random_pairs > 0);
  CHECK(checked > 150);
}
