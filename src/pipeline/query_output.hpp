#pragma once
// An output file or stdout ("-"), with write errors turned into exceptions
// that name the file.
#include <cstdio>
#include <string>
#include <string_view>

namespace metawarp::pipeline {

class OutputFile {
 public:
  OutputFile() = default;
  explicit OutputFile(const std::string& path);  // empty path: a no-op sink
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  bool enabled() const { return file_ != nullptr; }
  void write(std::string_view text);
  // Flushes and closes; throws when anything could not be written.
  void close();

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  bool owned_ = false;
};

}  // namespace metawarp::pipeline
