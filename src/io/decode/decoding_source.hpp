#pragma once
// What every decoder (gzip, bzip2, zstd) owes its reader, written once:
// every byte decoded before an error is handed out before the error is
// thrown, and the error is thrown by the first read() with no byte before it
// to return and by every read() after, so which bytes arrive before an error
// depends only on the file, never on the sizes callers ask for.
#include <optional>

#include "io/decode/byte_source.hpp"
#include "io/decode/compressed_input.hpp"

namespace metawarp::io {

class DecodingSource : public ByteSource {
 public:
  explicit DecodingSource(CompressedInput input) : input_(std::move(input)) {}

  std::size_t read(char* destination, std::size_t capacity) final {
    if (error_) throw *error_;
    if (finished_ || capacity == 0) return 0;
    std::size_t produced = 0;
    try {
      if (!decode(destination, capacity, produced)) finished_ = true;
    } catch (const SourceError& error) {
      error_ = error;
      if (produced == 0) throw;
    }
    return produced;
  }
  bool compressed() const final { return true; }
  std::uint64_t raw_bytes_read() const override { return input_.raw().raw_bytes_read(); }

 protected:
  // Decodes into `destination`, counting in `produced` (also when it throws)
  // the bytes written; stops once it has written some. Returns false when
  // the data has ended cleanly (nothing more will come).
  virtual bool decode(char* destination, std::size_t capacity, std::size_t& produced) = 0;

  CompressedInput input_;

 private:
  bool finished_ = false;
  std::optional<SourceError> error_;
};

}  // namespace metawarp::io
