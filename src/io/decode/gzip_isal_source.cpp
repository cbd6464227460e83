// gzip through Intel ISA-L's igzip inflate, several times zlib's speed, with
// zlib's results: on clean data the bytes are the same (both decode DEFLATE);
// for everything else (a header it does not vouch for, a corrupt or truncated
// member, a wrong checksum) it goes back to the start of the member and
// hands the rest of the file to the zlib decoder (gzip_zlib_source.cpp),
// which skips the member's bytes already handed out and then gives zlib's
// bytes and zlib's error. That is possible while the member's start is still
// in the input buffer (members up to 2 MiB compressed: BGZF blocks,
// concatenated small files); in a larger member an error is named from
// ISA-L's code instead, after the bytes ISA-L decoded (docs/input-limits.md).
#include "io/decode/decoders.hpp"

#ifdef METAWARP_HAVE_ISAL

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <vector>

#include "io/decode/decoding_source.hpp"
#include "io/decode/gzip_header.hpp"

namespace metawarp::io {
namespace {

constexpr std::size_t input_buffer_size = std::size_t{4} << 20;

std::string isal_problem(int status) {
  switch (status) {
    case ISAL_INVALID_BLOCK: return "invalid block";
    case ISAL_INVALID_SYMBOL: return "invalid literal/length or distance code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    default: return "invalid deflate data (ISA-L status " + std::to_string(status) + ")";
  }
}

class IsalGzipSource final : public DecodingSource {
 public:
  explicit IsalGzipSource(CompressedInput input)
      : DecodingSource(std::move(input)), state_(std::make_unique<inflate_state>()) {
    isal_inflate_init(state_.get());
  }

  std::uint64_t raw_bytes_read() const override {
    return zlib_ ? zlib_->raw_bytes_read() : DecodingSource::raw_bytes_read();
  }

 private:
  // A problem the zlib decoder will name exactly (when it can take over).
  struct Trouble {
    SourceError error;
  };

  bool decode(char* destination, std::size_t capacity, std::size_t& produced) override {
    if (zlib_) return from_zlib(destination, capacity, produced);
    try {
      return decode_isal(destination, capacity, produced);
    } catch (const Trouble& trouble) {
      if (!input_.marked()) throw trouble.error;
      // This call's bytes are dropped: zlib makes them again after the skip.
      const std::uint64_t handed_out = member_output_ - produced;
      produced = 0;
      input_.rewind_to_mark();
      zlib_ = make_zlib_gzip_source(std::move(input_));
      skip(handed_out);
      return from_zlib(destination, capacity, produced);
    }
  }

  bool decode_isal(char* destination, std::size_t capacity, std::size_t& produced) {
    while (produced == 0) {
      if (!member_open_) {
        if (!input_.next_stream_follows("\x1f\x8b")) return false;
        start_member();
      }
      if (!deflate_done_) {
        inflate_some(destination, capacity, produced);
      } else {
        finish_member();
      }
    }
    return true;
  }

  void start_member() {
    input_.mark();
    member_output_ = 0;
    GzipHeader header;
    while ((header = parse_gzip_header(input_.data(), input_.available())).status ==
           GzipHeader::Status::incomplete) {
      if (input_.available() >= input_buffer_size / 2 || !input_.refill())
        throw Trouble{input_.truncated()};
    }
    if (header.status == GzipHeader::Status::invalid)
      throw Trouble{input_.corrupt("invalid gzip header")};
    input_.consume(header.length);
    isal_inflate_reset(state_.get());
    state_->crc_flag = ISAL_GZIP_NO_HDR;
    member_open_ = true;
    deflate_done_ = false;
  }

  void inflate_some(char* destination, std::size_t capacity, std::size_t& produced) {
    if (input_.available() == 0 && !input_.refill()) throw Trouble{input_.truncated()};
    state_->next_in = const_cast<unsigned char*>(input_.data());
    state_->avail_in = static_cast<std::uint32_t>(std::min<std::size_t>(input_.available(), UINT32_MAX));
    state_->next_out = reinterpret_cast<unsigned char*>(destination + produced);
    state_->avail_out = static_cast<std::uint32_t>(std::min<std::size_t>(capacity - produced, UINT32_MAX));
    const std::uint32_t in_before = state_->avail_in, out_before = state_->avail_out;
    const int status = isal_inflate(state_.get());
    input_.consume(in_before - state_->avail_in);
    const std::uint32_t made = out_before - state_->avail_out;
    produced += made;
    member_output_ += made;
    if (status < 0) throw Trouble{input_.corrupt(isal_problem(status))};
    if (state_->block_state == ISAL_BLOCK_FINISH) {
      // Whole bytes ISA-L read ahead past the end of the deflate data belong
      // to the trailer.
      const std::uint32_t unread = static_cast<std::uint32_t>(state_->read_in_length) / 8;
      input_.unconsume(unread);
      state_->read_in_length = 0;
      deflate_done_ = true;
    }
  }

  void finish_member() {
    if (!input_.has(8)) throw Trouble{input_.truncated()};
    const unsigned char* trailer = input_.data();
    if (little_endian_32(trailer) != state_->crc) throw Trouble{input_.corrupt("incorrect data check")};
    if (little_endian_32(trailer + 4) != static_cast<std::uint32_t>(member_output_))
      throw Trouble{input_.corrupt("incorrect length check")};
    input_.consume(8);
    member_open_ = false;
  }

  // Reads and drops `count` bytes from zlib: the member's bytes handed out
  // already. An error among them is thrown (ISA-L went further than zlib).
  void skip(std::uint64_t count) {
    std::vector<char> scratch(std::size_t{1} << 16);
    while (count > 0) {
      const std::size_t n = zlib_->read(scratch.data(), std::min<std::uint64_t>(count, scratch.size()));
      if (n == 0) return;
      count -= n;
    }
  }

  bool from_zlib(char* destination, std::size_t capacity, std::size_t& produced) {
    produced = zlib_->read(destination, capacity);
    return produced > 0;
  }

  std::unique_ptr<inflate_state> state_;  // large (history buffers): on the heap
  bool member_open_ = false;
  bool deflate_done_ = false;
  std::uint64_t member_output_ = 0;
  std::unique_ptr<ByteSource> zlib_;  // set once zlib has taken over
};

}  // namespace

bool isal_available() { return true; }

std::unique_ptr<ByteSource> make_isal_gzip_source(CompressedInput input) {
  return std::make_unique<IsalGzipSource>(std::move(input));
}

}  // namespace metawarp::io

#else  // built without ISA-L

namespace metawarp::io {
bool isal_available() { return false; }
std::unique_ptr<ByteSource> make_isal_gzip_source(CompressedInput) { return nullptr; }
}  // namespace metawarp::io

#endif
