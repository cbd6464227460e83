#pragma once
// The one wording of every output error: "cannot write database 'x': ..." for
// the database, "cannot write 'x': ..." for the other outputs.
#include <stdexcept>
#include <string>
#include <string_view>

namespace metawarp::output {

// `noun` says what the file is ("database"), or is empty for the other outputs.
inline std::runtime_error write_error(std::string_view noun, std::string_view path,
                                      std::string_view problem) {
  std::string text = "cannot write ";
  if (!noun.empty()) text.append(noun).append(" ");
  text.append("'").append(path).append("': ").append(problem);
  return std::runtime_error(text);
}

}  // namespace metawarp::output
