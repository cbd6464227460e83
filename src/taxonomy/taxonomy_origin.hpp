#pragma once
// Internal to the taxonomy module: where a Taxonomy's nodes came from, so
// that errors found while building it (missing parent, duplicate id, cycle)
// name the file and line, not just the taxid.
#include <cstdint>
#include <string>
#include <vector>

#include "taxonomy/taxonomy.hpp"

namespace metawarp::taxonomy {

struct Taxonomy::Origin {
  std::string file;                  // empty: nodes given in memory (from_nodes)
  std::vector<std::uint32_t> lines;  // line of each node, in input order; may be empty

  // "file:line" of the node at `input_index`, "file" when its line is not
  // known, "" for nodes given in memory.
  std::string location(std::size_t input_index) const {
    if (file.empty() || input_index >= lines.size()) return file;
    return file + ":" + std::to_string(lines[input_index]);
  }

  // "file:line: " or "taxonomy: " prefix for a node at `input_index`.
  std::string where(std::size_t input_index) const {
    const std::string at = location(input_index);
    return (at.empty() ? std::string("taxonomy") : at) + ": ";
  }
};

}  // namespace metawarp::taxonomy
