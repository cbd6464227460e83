#pragma once
// Names in a warning: the first few, then how many more, so a warning about
// a million targets stays one readable line.
#include <cstddef>
#include <string>
#include <vector>

namespace metawarp::cli {

inline constexpr std::size_t listed_names = 10;

// "a, b, c" or "a, b, ..., j ... and 5 more" (at most `limit` names). `total`
// may exceed names.size() when only some names were kept.
std::string name_list(const std::vector<std::string>& names, std::size_t total,
                      std::size_t limit = listed_names);
inline std::string name_list(const std::vector<std::string>& names) {
  return name_list(names, names.size());
}

}  // namespace metawarp::cli
