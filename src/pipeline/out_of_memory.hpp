#pragma once
// Running out of memory where the stage is known: a std::bad_alloc thrown
// while loading a database, reading a part of one, holding a query's reads
// or a build's tables becomes one error line saying which stage ran out and
// which options lower what it holds (docs/reliability.md "Resources"). Any
// other std::bad_alloc gets a generic message at the top level
// (cli/command_line.cpp).
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

namespace metawarp::pipeline {

// "out of memory <stage>: <remedy>"
class OutOfMemory : public std::runtime_error {
 public:
  OutOfMemory(const std::string& stage, const std::string& remedy)
      : std::runtime_error("out of memory " + stage + ": " + remedy) {}
};

// f(); a std::bad_alloc it throws becomes OutOfMemory(stage, remedy). An
// inner stage that named itself first is left as it is.
template <class F>
decltype(auto) naming_out_of_memory(const std::string& stage, const std::string& remedy, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(stage, remedy);
  }
}

}  // namespace metawarp::pipeline
