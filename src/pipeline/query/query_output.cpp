#include "pipeline/query/query_output.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include "output/write_error.hpp"

namespace metawarp::pipeline {

namespace {
constexpr const char* standard_output = "-";

[[noreturn]] void stream_failed(const std::string& name) {
  throw output::write_error({}, name, std::strerror(errno));
}
}  // namespace

OutputFile::OutputFile(const std::string& path) : path_(path) {
  if (path.empty()) return;
  if (path == standard_output) {
    stream_ = stdout;
    path_ = "standard output";
    return;
  }
  file_ = std::make_unique<output::AtomicFile>(path, output::OnFailure::remove_existing);
}

void OutputFile::write(std::string_view text) {
  if (file_) return file_->write(text);
  if (!stream_ || text.empty()) return;
  if (std::fwrite(text.data(), 1, text.size(), stream_) != text.size()) stream_failed(path_);
}

void OutputFile::close() {
  if (file_) {
    file_->commit();
    file_.reset();
  }
  if (stream_) {
    std::FILE* stream = std::exchange(stream_, nullptr);
    if (std::fflush(stream) != 0) stream_failed(path_);
  }
}

}  // namespace metawarp::pipeline
