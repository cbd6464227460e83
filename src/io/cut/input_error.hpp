#pragma once
// The error of bad or unreadable input as the user sees it, naming file,
// record and problem:
//   "reads.fq: record 3: quality length 98 differs from sequence length 100 (line 12)"
// Raised where an input is opened or cut (record 0: not inside a record) and
// where its records are parsed; stdin is called "<stdin>".
#include <cstdint>
#include <stdexcept>
#include <string>

namespace metawarp::io {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::uint64_t record, const std::string& problem);
  const std::string& file() const { return file_; }
  std::uint64_t record() const { return record_; }  // 1-based; 0: not inside a record

 private:
  std::string file_;
  std::uint64_t record_;
};

// What messages call an input: the path, or "<stdin>" for "-".
std::string input_display_name(const std::string& path);

}  // namespace metawarp::io
