#pragma once
// What every harness provides, and what they share. A harness is one
// LLVMFuzzerTestOneInput (the libFuzzer entry point) and the seeds of its
// corpus; fuzz_driver.cpp runs the same harness without libFuzzer.
//
// Bad input may only end in a documented error: io::InputError or another
// std::runtime_error with a message. Anything else (another exception type,
// an empty message, a crash, a sanitizer report, an oracle that disagrees)
// is a bug, and ends the process so that the fuzzer reports the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

// The seeds of the harness's corpus, generated here rather than stored.
std::vector<std::string> fuzz_seeds();

namespace metawarp::fuzz {

[[noreturn]] inline void report_bug(const std::string& what) {
  std::fprintf(stderr, "fuzz: %s\n", what.c_str());
  std::abort();
}

// Runs `body`, taking the documented errors as the expected outcome of bad
// input; other exceptions pass through to the caller (and end the process).
// Returns the message of the error, empty when there was none.
template <class Body>
std::string documented_error_of(Body&& body) {
  try {
    body();
  } catch (const std::runtime_error& error) {
    if (error.what()[0] == '\0') report_bug("a std::runtime_error without a message");
    return error.what();
  }
  return {};
}

// Takes a fuzz input apart: option bytes first, then the data: one file, or
// several separated by a line "=====".
class InputBytes {
 public:
  InputBytes(const std::uint8_t* data, std::size_t size)
      : bytes_(reinterpret_cast<const char*>(data), size) {}

  // The next byte (0 once none is left).
  std::uint8_t option() {
    if (bytes_.empty()) return 0;
    const auto value = static_cast<std::uint8_t>(bytes_.front());
    bytes_.remove_prefix(1);
    return value;
  }
  // All the bytes left, as one file.
  std::string rest() {
    const std::string all(bytes_);
    bytes_ = {};
    return all;
  }
  // The next file: the bytes up to the next separator, or all that is left.
  std::string file() {
    const std::size_t end = bytes_.find(separator);
    const std::string_view file = bytes_.substr(0, end);
    bytes_.remove_prefix(end == std::string_view::npos ? bytes_.size() : end + separator.size());
    return std::string(file);
  }

  static constexpr std::string_view separator = "\n=====\n";

 private:
  std::string_view bytes_;
};

// Joins option bytes and files into an input that InputBytes takes apart.
inline std::string make_input(std::string_view options, const std::vector<std::string>& files) {
  std::string input(options);
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (i > 0) input.append(InputBytes::separator);
    input.append(files[i]);
  }
  return input;
}

}  // namespace metawarp::fuzz
