// Decoding on a thread of its own: the decoder fills chunks ahead of the
// reader (at most `chunks` of them, so memory stays bounded) and the reader
// only copies. The chunks have one fixed size, so the decoder is asked for
// the same sizes whatever the reader asks for; an error travels after the
// chunk of bytes before it and is thrown once they have been read, as the
// decoder itself would.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <optional>
#include <vector>

#include "io/decode/decoders.hpp"
#include "metawarp/host/channel.hpp"
#include "metawarp/host/thread_group.hpp"

namespace metawarp::io {
namespace {

struct Chunk {
  std::vector<char> bytes;
  std::size_t size = 0;
  std::optional<SourceError> error;  // after the bytes; the last chunk
};

class ReadAheadSource final : public ByteSource {
 public:
  ReadAheadSource(std::unique_ptr<ByteSource> source, std::size_t chunk_size, std::size_t chunks)
      : source_(std::move(source)), full_(chunks), free_(chunks + 1) {
    for (std::size_t i = 0; i < chunks + 1; ++i) free_.push(Chunk{std::vector<char>(chunk_size), 0, std::nullopt});
    threads_.on_stop([this] {
      full_.cancel();
      free_.cancel();
    });
    threads_.spawn([this] { decode(); });
  }
  ~ReadAheadSource() override { threads_.stop(); }
  ReadAheadSource(const ReadAheadSource&) = delete;
  ReadAheadSource& operator=(const ReadAheadSource&) = delete;

  std::size_t read(char* destination, std::size_t capacity) override {
    while (used_ == current_.size) {
      if (current_.error) throw *current_.error;
      if (ended_) return 0;
      if (!current_.bytes.empty()) free_.push(std::move(current_));
      current_ = Chunk{};
      used_ = 0;
      if (!full_.pop(current_)) {
        threads_.join();  // rethrows what went wrong on the thread, if anything did
        ended_ = true;
        return 0;
      }
      if (current_.size == 0 && !current_.error) ended_ = true;
    }
    const std::size_t n = std::min(capacity, current_.size - used_);
    std::memcpy(destination, current_.bytes.data() + used_, n);
    used_ += n;
    return n;
  }
  bool compressed() const override { return source_->compressed(); }
  std::uint64_t raw_bytes_read() const override { return raw_bytes_.load(std::memory_order_relaxed); }

 private:
  void decode() {
    Chunk chunk;
    while (free_.pop(chunk)) {
      chunk.size = 0;
      try {
        // Full chunks (but for the last): the decoder sees fixed sizes.
        while (chunk.size < chunk.bytes.size()) {
          const std::size_t n = source_->read(chunk.bytes.data() + chunk.size, chunk.bytes.size() - chunk.size);
          if (n == 0) break;
          chunk.size += n;
        }
      } catch (const SourceError& error) {
        chunk.error = error;
      }
      raw_bytes_.store(source_->raw_bytes_read(), std::memory_order_relaxed);
      const bool last = chunk.size < chunk.bytes.size() || chunk.error;
      if (!full_.push(std::move(chunk))) return;
      if (last) {
        full_.close();
        return;
      }
    }
  }

  std::unique_ptr<ByteSource> source_;
  host::Channel<Chunk> full_, free_;
  std::atomic<std::uint64_t> raw_bytes_{0};
  Chunk current_;
  std::size_t used_ = 0;
  bool ended_ = false;
  host::ThreadGroup threads_;  // last: stopped and joined before the rest goes
};

}  // namespace

std::unique_ptr<ByteSource> make_read_ahead_source(std::unique_ptr<ByteSource> source,
                                                   std::size_t chunk, std::size_t chunks) {
  return std::make_unique<ReadAheadSource>(std::move(source), chunk, chunks);
}

}  // namespace metawarp::io
