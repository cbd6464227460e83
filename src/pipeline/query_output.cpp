#include "pipeline/query_output.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace metawarp::pipeline {

namespace {
[[noreturn]] void fail(const std::string& path, const char* what) {
  throw std::runtime_error("cannot " + std::string(what) + " '" + path +
                           "': " + std::strerror(errno));
}
}  // namespace

OutputFile::OutputFile(const std::string& path) : path_(path) {
  if (path.empty()) return;
  if (path == "-") {
    file_ = stdout;
    path_ = "standard output";
    return;
  }
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) fail(path, "create");
  owned_ = true;
}

OutputFile::~OutputFile() {
  if (owned_ && file_) std::fclose(file_);
}

void OutputFile::write(std::string_view text) {
  if (!file_ || text.empty()) return;
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) fail(path_, "write to");
}

void OutputFile::close() {
  if (!file_) return;
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fflush(f) != 0) {
    if (owned_) std::fclose(f);
    fail(path_, "write to");
  }
  if (owned_ && std::fclose(f) != 0) fail(path_, "close");
}

}  // namespace metawarp::pipeline
