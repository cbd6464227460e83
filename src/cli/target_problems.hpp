#pragma once
// What `metawarp info` reports about a database's targets by name: targets
// without a taxon and target names given to more than one target.
#include <cstddef>
#include <string>
#include <vector>

#include "db/database.hpp"

namespace metawarp::cli {

struct DuplicateName {
  std::string name;
  std::vector<std::size_t> targets;  // target ids, ascending
};

struct TargetProblems {
  // Ids of the targets with no taxid, or a taxid the embedded taxonomy lacks.
  std::vector<std::size_t> without_taxon;
  std::vector<DuplicateName> duplicate_names;  // by first occurrence
};

TargetProblems find_target_problems(const db::Database& database);

// A target without a taxon, as find_target_problems counts it.
bool has_taxon(const db::Database& database, const db::Target& target);

}  // namespace metawarp::cli
