#pragma once
// A query output: a file, stdout ("-") or nothing (""), with write errors
// turned into exceptions that name it.
//
// A path is an output/atomic_file.hpp output with the query policy: a file
// appears only when close() commits it, and an OutputFile destroyed without
// close() (the query failed) removes its temporary and the older file at
// its path, so a failed query leaves neither a partial new output nor a
// stale old one that looks current. A device, FIFO or descriptor path
// (/dev/null, /dev/stdout) and "-" (stdout) are streamed as the output comes.
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "output/atomic_file.hpp"

namespace metawarp::pipeline {

class OutputFile {
 public:
  OutputFile() = default;
  // Empty path: a no-op sink. Throws when the path breaks the output path
  // rule (output/output_path.hpp) or the temporary cannot be created; an
  // older file at the path is then left as it is.
  explicit OutputFile(const std::string& path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  bool enabled() const { return file_ || stream_; }
  void write(std::string_view text);
  // Commits: flushes, syncs and renames a file into place (flushes stdout);
  // throws when anything could not be written.
  void close();

 private:
  std::string path_;  // for messages
  std::unique_ptr<output::AtomicFile> file_;
  std::FILE* stream_ = nullptr;  // stdout
};

}  // namespace metawarp::pipeline
