#pragma once
// The message of the exception a callable throws, for tests that check what
// an error says ("" when it throws none: the caller's checks then fail).
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

}  // namespace metawarp::test
