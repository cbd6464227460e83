#include "cli/name_list.hpp"

#include <algorithm>

namespace metawarp::cli {

std::string name_list(const std::vector<std::string>& names, std::size_t total,
                      std::size_t limit) {
  const std::size_t shown = std::min(names.size(), limit);
  std::string text;
  for (std::size_t i = 0; i < shown; ++i) text += (i ? ", " : "") + names[i];
  const std::size_t more = std::max(total, names.size()) - shown;
  if (more > 0) text += " ... and " + std::to_string(more) + " more";
  return text;
}

}  // namespace metawarp::cli
