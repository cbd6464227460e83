#include "io/cut/input_error.hpp"

#include <utility>

namespace metawarp::io {
namespace {

std::string error_text(const std::string& file, std::uint64_t record, const std::string& problem) {
  if (record == 0) return file + ": " + problem;
  return file + ": record " + std::to_string(record) + ": " + problem;
}

}  // namespace

InputError::InputError(std::string file, std::uint64_t record, const std::string& problem)
    : std::runtime_error(error_text(file, record, problem)), file_(std::move(file)), record_(record) {}

std::string input_display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

}  // namespace metawarp::io
