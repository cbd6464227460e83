#pragma once
// A small NCBI-like tree written by hand: strains/serotypes under species
// under genera, "no rank" and "clade" nodes, a superkingdom (Bacteria), a
// domain (Archaea), viruses under an acellular root with a realm, merged ids
// (one a chain), an unknown rank, and names with synonyms.
#include <string>
#include <vector>

#include "catch.hpp"
#include "taxonomy/taxonomy.hpp"
#include "temp_files.hpp"

namespace metawarp::test {

struct HandNode {
  unsigned id, parent;
  const char* rank;
  const char* name;
};

inline const std::vector<HandNode>& hand_nodes() {
  static const std::vector<HandNode> nodes{
      {1, 1, "no rank", "root"},
      {131567, 1, "cellular root", "cellular organisms"},
      {2, 131567, "superkingdom", "Bacteria"},
      {2157, 131567, "domain", "Archaea"},
      {1224, 2, "phylum", "Proteobacteria"},
      {1236, 1224, "class", "Gammaproteobacteria"},
      {91347, 1236, "order", "Enterobacterales"},
      {543, 91347, "family", "Enterobacteriaceae"},
      {561, 543, "genus", "Escherichia"},
      {562, 561, "species", "Escherichia coli"},
      {83333, 562, "strain", "Escherichia coli K-12"},
      {511145, 83333, "no rank", "Escherichia coli str. K-12 substr. MG1655"},
      {590, 543, "genus", "Salmonella"},
      {28901, 590, "species", "Salmonella enterica"},
      {59201, 28901, "subspecies", "Salmonella enterica subsp. enterica"},
      {90371, 59201, "serotype", "Salmonella enterica subsp. enterica serovar Typhimurium"},
      {1783272, 2, "clade", "Terrabacteria group"},
      {1239, 1783272, "phylum", "Bacillota"},
      {91061, 1239, "class", "Bacilli"},
      {1385, 91061, "order", "Bacillales"},
      {90964, 1385, "family", "Staphylococcaceae"},
      {1279, 90964, "genus", "Staphylococcus"},
      {1280, 1279, "species", "Staphylococcus aureus"},
      {1282, 1279, "species", "Staphylococcus epidermidis"},
      {28890, 2157, "phylum", "Methanobacteriota"},
      {196118, 28890, "genus", "Methanocaldococcus"},
      {2190, 196118, "species", "Methanocaldococcus jannaschii"},
      {10239, 1, "acellular root", "Viruses"},
      {2559587, 10239, "realm", "Riboviria"},
      {11118, 2559587, "family", "Coronaviridae"},
      {694002, 11118, "genus", "Betacoronavirus"},
      {694009, 694002, "species", "Severe acute respiratory syndrome-related coronavirus"},
      {2697049, 694009, "no rank", "Severe acute respiratory syndrome coronavirus 2"},
      {9999, 1, "mystery rank", "unclassified things"},
  };
  return nodes;
}

// old -> new; 7 -> 4 -> 562 is a chain.
inline const std::vector<std::pair<unsigned, unsigned>>& hand_merged() {
  static const std::vector<std::pair<unsigned, unsigned>> merged{{4, 562}, {5, 1280}, {7, 4}};
  return merged;
}

inline std::string hand_nodes_dmp() {
  std::string s;
  for (const auto& n : hand_nodes()) s += nodes_line(n.id, n.parent, n.rank);
  return s;
}

inline std::string hand_names_dmp() {
  std::string s;
  for (const auto& n : hand_nodes()) {
    // Other name classes come first, as in NCBI's file, and must be ignored.
    s += names_line(n.id, std::string("synonym of ") + n.name, "synonym");
    s += names_line(n.id, std::string(n.name) + " Author 1900", "authority");
    s += names_line(n.id, n.name, "scientific name");
  }
  return s;
}

inline std::string hand_merged_dmp() {
  std::string s;
  for (const auto& [o, n] : hand_merged()) s += merged_line(o, n);
  return s;
}

// Requires the same taxonomy: size, then each node's id, parent, rank and
// name in order, and the merged ids (the hand tree loaded two ways).
inline void require_same(const taxonomy::Taxonomy& a, const taxonomy::Taxonomy& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a.nodes()[i].id == b.nodes()[i].id);
    CHECK(a.nodes()[i].parent == b.nodes()[i].parent);
    CHECK(a.nodes()[i].rank == b.nodes()[i].rank);
    CHECK(a.nodes()[i].name == b.nodes()[i].name);
  }
  CHECK(a.merged() == b.merged());
}

}  // namespace metawarp::test
