#pragma once
// The message of the exception a callable throws, for tests that check what
// an error says ("" when it throws none: the caller's checks then fail), and
// contains(message, part) to check what it names.
#include <exception>
#include <string>

namespace metawarp::test {

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// Whether `s` contains `part` (the checks of what an error message names).
inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace metawarp::test
