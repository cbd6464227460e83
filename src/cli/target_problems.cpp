#include "cli/target_problems.hpp"

#include <unordered_map>

namespace metawarp::cli {

bool has_taxon(const db::Database& database, const db::Target& target) {
  return target.taxid != taxonomy::no_taxon && database.taxonomy.find(target.taxid) != nullptr;
}

TargetProblems find_target_problems(const db::Database& database) {
  TargetProblems problems;
  std::unordered_map<std::string_view, std::vector<std::size_t>> ids_by_name;
  std::vector<std::string_view> names_in_order;
  for (std::size_t id = 0; id < database.targets.size(); ++id) {
    const db::Target& target = database.targets[id];
    if (!has_taxon(database, target)) problems.without_taxon.push_back(id);
    auto& ids = ids_by_name[target.name];
    if (ids.empty()) names_in_order.push_back(target.name);
    ids.push_back(id);
  }
  for (std::string_view name : names_in_order) {
    auto& ids = ids_by_name[name];
    if (ids.size() > 1) problems.duplicate_names.push_back({std::string(name), std::move(ids)});
  }
  return problems;
}

}  // namespace metawarp::cli
