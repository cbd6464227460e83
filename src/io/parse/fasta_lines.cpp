#include "io/parse/fasta_lines.hpp"

#include <algorithm>
#include <cstring>

#include "io/cut/text_checks.hpp"

namespace metawarp::io {
namespace {

// Bytes looked at, and copied, at a time by the loop that takes any line.
// SSE2 is baseline x86-64, so the binary runs on every host it is built for.
constexpr std::size_t lane = 16;
// Bytes classified at a time by the loop that takes most lines.
constexpr std::size_t window = 64;

// A window's bytes, as flags: bit i of `newlines`: bytes[i] is '\n'; of
// `plain`: bytes[i] is a letter or '\n' (any other byte sends the window to
// the lanes: '\r', '>', a gap symbol, a bad byte).
struct WindowMasks {
  std::uint64_t newlines;
  std::uint64_t plain;
};

// GCC's vector types: the same source is two SSE2 operations per vector in
// the default build, one AVX2 operation in its AVX2 clone.
using Bytes32 = char __attribute__((vector_size(32)));
using Bytes16 = char __attribute__((vector_size(16)));
using UnsignedBytes32 = unsigned char __attribute__((vector_size(32)));
using UnsignedBytes16 = unsigned char __attribute__((vector_size(16)));

// Bit i: flag byte i (0 or -1) is set.
inline std::uint32_t flag_bits(const Bytes16& flags) {
#if defined(__SSE2__)
  return std::uint32_t(__builtin_ia32_pmovmskb128(flags));
#else
  std::uint32_t bits = 0;
  for (int i = 0; i < 16; ++i) bits |= std::uint32_t(flags[i] != 0) << i;
  return bits;
#endif
}

inline std::uint32_t flag_bits(const Bytes32& flags) {
  const Bytes16 low = __builtin_shufflevector(flags, flags, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                              11, 12, 13, 14, 15);
  const Bytes16 high = __builtin_shufflevector(flags, flags, 16, 17, 18, 19, 20, 21, 22, 23, 24,
                                               25, 26, 27, 28, 29, 30, 31);
  return flag_bits(low) | flag_bits(high) << 16;
}

// `letters`: the flags of the letters of `v`, either case: (u | 0x20) - 'a'
// < 26 unsigned (as is_sequence_char), compared signed after moving 'a'..'z'
// to -128..-103. (Not returned: a 32-byte vector returned by value has
// another ABI with AVX, which GCC warns of.)
// The move wraps, so it is done on unsigned bytes (signed bytes would
// overflow: undefined) and the result read back as signed bytes (a vector
// cast keeps the bits).
template <class Bytes, class UnsignedBytes>
inline void letter_flags(const Bytes& v, Bytes& letters) {
  static_assert(char(-1) < 0, "the compare below is signed");
  static_assert(sizeof(Bytes) == sizeof(UnsignedBytes));
  const UnsignedBytes moved =
      (UnsignedBytes)(v | 0x20) + static_cast<unsigned char>(0x80 - 'a');
  letters = (Bytes)moved < static_cast<char>(-128 + 26);
}

inline WindowMasks window_masks(const char* bytes) {
  WindowMasks masks{0, 0};
  for (std::size_t half = 0; half < 2; ++half) {
    Bytes32 v;
    std::memcpy(&v, bytes + 32 * half, sizeof v);
    Bytes32 letters;
    letter_flags<Bytes32, UnsignedBytes32>(v, letters);
    const Bytes32 newline = v == '\n';
    masks.newlines |= std::uint64_t(flag_bits(newline)) << (32 * half);
    masks.plain |= std::uint64_t(flag_bits(letters | newline)) << (32 * half);
  }
  return masks;
}

// Bit i: bytes[i] is no sequence character (is_sequence_char): a line end,
// a '\r', a '>', or a bad byte. The lines are read up to these stops.
inline unsigned stop_mask(const char* bytes) {
  Bytes16 v;
  std::memcpy(&v, bytes, sizeof v);
  Bytes16 letters;
  letter_flags<Bytes16, UnsignedBytes16>(v, letters);
  const Bytes16 sequence = letters | (v == '-') | (v == '*') | (v == '.');
  return ~flag_bits(sequence) & 0xffffu;
}

// Where a call of take_sequence_lines stands: the first line not taken
// yet, and where its bases go.
struct Cursor {
  const char* line;
  char* line_out;
  std::uint64_t lines = 0;  // taken so far
};

// Takes lines, one lane of bytes at a time, as long as they start before
// `until`: each step copies a whole lane and moves on by the bases in it, so
// the bytes after a line's bases are written over by the next line's.
// False when it stopped before a line it cannot take (a header, a bad byte,
// a lone '\r', a line whose '\n' is not before `end`).
bool take_lines_by_lane(const char* end, const char* until, Cursor& cursor) {
  const char* at = cursor.line;  // the first byte of the line not yet looked at
  char* to = cursor.line_out;
  char padded[lane];
  while (true) {
    if (at == end) return false;  // the text's end: nothing after it to take
    if (cursor.line >= until) return true;
    const char* bytes = at;
    if (std::size_t(end - at) < lane) {
      // The last bytes of the text are looked at through a copy padded with
      // stops (zero bytes), so nothing after the text is read.
      std::memset(padded, 0, lane);
      std::memcpy(padded, at, std::size_t(end - at));
      bytes = padded;
    }
    std::memcpy(to, bytes, lane);
    const unsigned mask = stop_mask(bytes);
    if (mask == 0) {
      at += lane;
      to += lane;
      continue;
    }
    const char* stop = at + __builtin_ctz(mask);
    if (stop >= end) return false;  // the line's end is not in the text
    const std::size_t length = std::size_t(stop - cursor.line);
    if (*stop == '\r' && stop + 1 != end && stop[1] == '\n') ++stop;  // CRLF
    if (*stop != '\n') return false;  // a header, a bad byte or a lone '\r': the line loop's
    cursor.line_out += length;
    to = cursor.line_out;
    cursor.line = at = stop + 1;
    ++cursor.lines;
  }
}

// 64 bytes from `bytes` at `to`.
inline void copy_window(char* to, const char* bytes) { std::memcpy(to, bytes, window); }

// Takes the lines of the windows of 64 bytes from the cursor's line on that
// hold nothing but letters and '\n' (nearly all of a genome), and returns
// the first window that holds more, or where fewer than two windows and a
// byte are left (a window's bases are moved by copies of the next 64 bytes).
// Branches only on windows of several lines, so a line end costs no
// mispredicted jump. Built for AVX2 too where the compiler can (the
// classification twice as wide), picked at run time by the CPU; not under
// ThreadSanitizer (as clean_fastq_record, record_views.cpp).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
const char* take_plain_windows(const char* end, Cursor& cursor) {
  const char* at = cursor.line;
  char* to = cursor.line_out;
  while (std::size_t(end - at) > 2 * window) {
    const WindowMasks masks = window_masks(at);
    if (masks.plain != ~std::uint64_t{0}) break;
    copy_window(to, at);
    const std::uint64_t newlines = masks.newlines;
    const int count = __builtin_popcountll(newlines);
    if (count <= 1) {
      // The bytes after the line end (if any) one byte down; without one,
      // the copy lands past the window, where the next window is written.
      const int first = newlines != 0 ? __builtin_ctzll(newlines) : int(window);
      copy_window(to + first, at + first + 1);
    } else {
      int removed = 0;
      for (std::uint64_t rest = newlines; rest != 0; rest &= rest - 1) {
        const int position = __builtin_ctzll(rest);
        ++removed;
        copy_window(to + position + 1 - removed, at + position + 1);
      }
    }
    to += window - std::size_t(count);
    at += window;
    if (newlines != 0) {
      const int last = 63 - __builtin_clzll(newlines);
      cursor.line = at - window + last + 1;
      cursor.line_out = to - (at - cursor.line);
      cursor.lines += std::uint64_t(count);
    }
  }
  return at;
}

// append_fasta_sequence_lines into `out`, which has room for text.size() +
// lane bytes. `written`: the bases of the lines taken.
TakenLines take_sequence_lines(std::string_view text, char* out, std::size_t& written) {
  const char* const end = text.data() + text.size();
  Cursor cursor{text.data(), out};
  while (true) {
    // Windows while they are plain; the lanes take the lines of the window
    // that is not, and the windows go on after it.
    const char* stopped = take_plain_windows(end, cursor);
    const char* until = std::size_t(end - stopped) > window ? stopped + window : end;
    if (!take_lines_by_lane(end, until, cursor)) break;
  }
  written = std::size_t(cursor.line_out - out);
  return {std::size_t(cursor.line - text.data()), cursor.lines};
}

// Bytes of text taken per call of take_sequence_lines: `bases` is resized
// for them first (which zeroes the room), in pieces that stay in cache
// until the bases are written over them.
constexpr std::size_t piece_bytes = std::size_t{64} << 10;

}  // namespace

TakenLines append_fasta_sequence_lines(std::string_view text, std::string& bases) {
  TakenLines taken;
  while (taken.bytes < text.size()) {
    const std::string_view piece = text.substr(taken.bytes, piece_bytes);
    const std::size_t before = bases.size();
    bases.resize(before + piece.size() + lane);
    std::size_t written = 0;
    const TakenLines step = take_sequence_lines(piece, bases.data() + before, written);
    bases.resize(before + written);
    // Nothing taken: a line the loop must read, or one longer than a piece
    // (the loop reads that one too: one call per such line).
    if (step.bytes == 0) break;
    taken.bytes += step.bytes;
    taken.lines += step.lines;
  }
  return taken;
}

}  // namespace metawarp::io
