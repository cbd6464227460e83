#pragma once
// The reading side of the parallel gzip decoders (decode/bgzf_source.cpp,
// decode/chunked_gzip_source.cpp), written once: their threads push decoded
// chunks in file order, and at the end the decoder of the rest of the file
// (a serial one, from the first byte the threads did not decode); read()
// copies from the chunks, then reads from that decoder. An error of the
// threads is rethrown by read() after every byte before it.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include "io/decode/byte_buffer.hpp"
#include "io/decode/byte_source.hpp"
#include "metawarp/host/channel.hpp"

namespace metawarp::io {

struct DecodedChunk {
  ByteBuffer bytes;  // grows uninitialised: the decoders overwrite it
  std::unique_ptr<ByteSource> rest;  // the last chunk: the decoder of the rest of the file
};

class ChunkQueueSource : public ByteSource {
 public:
  ChunkQueueSource(std::size_t chunks, std::uint64_t raw_bytes) : chunks_(chunks), raw_bytes_(raw_bytes) {}
  ChunkQueueSource(const ChunkQueueSource&) = delete;
  ChunkQueueSource& operator=(const ChunkQueueSource&) = delete;

  std::size_t read(char* destination, std::size_t capacity) final {
    if (capacity == 0) return 0;
    for (;;) {
      if (rest_) return rest_->read(destination, capacity);
      if (used_ < current_.size()) {
        const std::size_t n = std::min(capacity, current_.size() - used_);
        std::memcpy(destination, current_.data() + used_, n);
        used_ += n;
        return n;
      }
      DecodedChunk chunk;
      if (!chunks_.pop(chunk)) {
        join_threads();  // rethrows what stopped them
        throw SourceError("gzip decoding threads stopped");
      }
      if (chunk.rest) {
        join_threads();
        rest_ = std::move(chunk.rest);
      } else {
        if (current_.capacity() > 0) recycle(std::move(current_));
        current_ = std::move(chunk.bytes);
        used_ = 0;
      }
    }
  }
  bool compressed() const final { return true; }
  std::uint64_t raw_bytes_read() const final {
    return rest_ ? rest_->raw_bytes_read() : raw_bytes_.load(std::memory_order_relaxed);
  }

 protected:
  // The threads' side: a derived class owns them (a ThreadGroup, its last
  // member, whose stop cancels chunks_), so they end before what they use.
  ~ChunkQueueSource() override = default;
  // Joins the threads (once they have pushed the last chunk or stopped),
  // rethrowing what stopped them.
  virtual void join_threads() = 0;
  // A buffer the reader is done with, for the threads to reuse.
  virtual void recycle(ByteBuffer&& buffer) { (void)buffer; }

  host::Channel<DecodedChunk> chunks_;
  std::atomic<std::uint64_t> raw_bytes_;

 private:
  ByteBuffer current_;
  std::size_t used_ = 0;
  std::unique_ptr<ByteSource> rest_;
};

}  // namespace metawarp::io
