// RFC 1951 decoded into bytes with unknown window bytes marked
// (deflate_chunk_decoder.hpp). Every check zlib's inflate makes is made here
// too, with zlib's tables (length and distance bases, which codes may be
// incomplete), so a stream this decoder takes is one zlib takes and decodes
// to the same bytes.
#include "io/decode/deflate_chunk_decoder.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>

#include "io/decode/deflate_stage_clock.hpp"

namespace metawarp::io {

bool DecodedBytes::reserve(std::size_t count) {
  if (count <= bytes.capacity()) return true;
  if (count > limit) return false;
  bytes.resize(size);  // what growing keeps
  bytes.reserve(std::min(limit, std::max(count, 2 * bytes.capacity() + (std::size_t{1} << 20))));
  return true;
}

void DecodedBytes::reserve_copies(std::size_t count) {
  if (count <= copy_capacity) return;
  const std::size_t capacity = std::max(count, 2 * copy_capacity);
  auto grown = std::make_unique_for_overwrite<WindowCopy[]>(capacity);
  std::copy(copies.get(), copies.get() + copy_count, grown.get());
  copies = std::move(grown);
  copy_capacity = capacity;
}

namespace {

// zlib's length and distance tables (inftrees.c): base and extra bits.
constexpr std::array<std::uint16_t, 29> length_base = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,
                                                       15, 17, 19, 23, 27, 31, 35, 43, 51,  59,
                                                       67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::array<std::uint8_t, 29> length_extra = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                       2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::array<std::uint16_t, 30> distance_base = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::array<std::uint8_t, 30> distance_extra = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                                         6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
// The order of the code-length code's lengths in a block header.
constexpr std::array<std::uint8_t, 19> code_length_order = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                            11, 4,  12, 3, 13, 2, 14, 1, 15};

// Bytes FASTQ and FASTA text holds: a chunk with anything else is left to the
// serial decoder (and false block starts show themselves quickly). None has
// the high bit, which is what lets window_byte mark unknown bytes.
constexpr std::array<bool, 256> text_bytes = [] {
  std::array<bool, 256> text{};
  for (int c = 0x20; c <= 0x7e; ++c) text[c] = true;
  text['\t'] = text['\n'] = text['\r'] = true;
  return text;
}();
static_assert((window_byte & 0x80) != 0, "window bytes must not look like text");

// A decoding table entry, everything the loop needs in one word: bits 0-4
// the code length to drop, 5-7 the kind, 8-15 the extra bits that follow
// (lengths, distances), a subtable's index bits or a literal entry's count
// of bytes (1 or 2: two literal codes that fit in the primary bits together
// decode at once), 16-31 the value (the literal bytes, the first in the low
// byte; a length or distance base with the extra bits still to add; a
// code-length symbol; a subtable's offset). 0 is invalid.
enum Kind : std::uint32_t { invalid = 0, literal = 1, length = 2, end_of_block = 3, subtable = 4, distance = 5 };
constexpr std::uint32_t entry(Kind kind, std::uint32_t value, std::uint32_t extra = 0) {
  return kind << 5 | extra << 8 | value << 16;
}
constexpr std::uint32_t entry_drop(std::uint32_t e) { return e & 31; }
constexpr Kind entry_kind(std::uint32_t e) { return static_cast<Kind>((e >> 5) & 7); }
constexpr std::uint32_t entry_extra(std::uint32_t e) { return (e >> 8) & 0xff; }
constexpr std::uint32_t entry_value(std::uint32_t e) { return e >> 16; }

// What a literal/length symbol decodes to: a text byte, end of block, a
// length (zlib's base and extra bits); anything else (non-text bytes, 286,
// 287) is refused where it is used, at no cost per symbol.
std::uint32_t literal_length_entry(unsigned symbol) {
  if (symbol < 256) return text_bytes[symbol] ? entry(literal, symbol, 1) : entry(invalid, 0);
  if (symbol == 256) return entry(end_of_block, 0);
  const unsigned code = symbol - 257;
  return code < length_base.size() ? entry(length, length_base[code], length_extra[code]) : entry(invalid, 0);
}
std::uint32_t distance_entry(unsigned symbol) {
  return symbol < distance_base.size() ? entry(distance, distance_base[symbol], distance_extra[symbol])
                                       : entry(invalid, 0);
}
std::uint32_t code_length_entry(unsigned symbol) { return entry(literal, symbol); }

constexpr unsigned literal_bits = 11, distance_bits = 8, code_length_bits = 7;
constexpr std::size_t literal_table_size = (1u << literal_bits) + 2048;
constexpr std::size_t distance_table_size = (1u << distance_bits) + 2048;

std::uint32_t reverse_bits(std::uint32_t code, unsigned length) {
  std::uint32_t reversed = 0;
  for (unsigned i = 0; i < length; ++i, code >>= 1) reversed = reversed << 1 | (code & 1);
  return reversed;
}

// Canonical Huffman decoding table for `lengths` (zlib's rules: over-subscribed
// never; incomplete only for a literal/length or distance code whose longest
// code has length 1; no code at all only for distances). A two-level table:
// `primary` bits, then subtables for longer codes; `make(symbol)` gives a
// symbol's entry. False: zlib refuses it too, or it needs more room than
// `capacity` (refused: safe).
template <class Make>
bool build_table(const std::uint8_t* lengths, unsigned count, std::uint32_t* table, unsigned primary,
                 std::size_t capacity, bool code_lengths, Make make) {
  std::array<unsigned, 16> per_length{};
  for (unsigned s = 0; s < count; ++s) ++per_length[lengths[s]];
  per_length[0] = 0;
  unsigned longest = 15;
  while (longest > 0 && per_length[longest] == 0) --longest;
  const std::size_t primary_size = std::size_t{1} << primary;
  std::fill(table, table + primary_size, entry(invalid, 0));
  if (longest == 0) return !code_lengths;
  int left = 1;
  for (unsigned len = 1; len <= 15; ++len) {
    left = (left << 1) - static_cast<int>(per_length[len]);
    if (left < 0) return false;
  }
  if (left > 0 && (code_lengths || longest != 1)) return false;

  std::array<std::uint32_t, 16> next{};
  std::uint32_t code = 0;
  for (unsigned len = 1; len <= 15; ++len) {
    code = (code + per_length[len - 1]) << 1;
    next[len] = code;
  }
  std::array<std::uint32_t, 320> reversed{};
  std::array<std::uint8_t, 1u << literal_bits> sub_bits{};
  for (unsigned s = 0; s < count; ++s) {
    const unsigned len = lengths[s];
    if (len == 0) continue;
    reversed[s] = reverse_bits(next[len]++, len);
    if (len > primary) {
      std::uint8_t& bits = sub_bits[reversed[s] & (primary_size - 1)];
      bits = static_cast<std::uint8_t>(std::max<unsigned>(bits, len - primary));
    }
  }
  std::size_t used = primary_size;
  for (std::size_t prefix = 0; prefix < primary_size; ++prefix) {
    if (sub_bits[prefix] == 0) continue;
    const std::size_t size = std::size_t{1} << sub_bits[prefix];
    if (used + size > capacity) return false;
    table[prefix] = entry(subtable, static_cast<std::uint32_t>(used), sub_bits[prefix]);
    std::fill(table + used, table + used + size, entry(invalid, 0));
    used += size;
  }
  for (unsigned s = 0; s < count; ++s) {
    const unsigned len = lengths[s];
    if (len == 0) continue;
    const std::uint32_t rev = reversed[s];
    const std::uint32_t e = make(s);
    // An invalid symbol's entry keeps its length 0: nothing to drop, refused anyway.
    const std::uint32_t with_length = entry_kind(e) == invalid ? e : e | len;
    if (len <= primary) {
      for (std::size_t i = rev; i < primary_size; i += std::size_t{1} << len) table[i] = with_length;
      continue;
    }
    const std::uint32_t sub = table[rev & (primary_size - 1)];
    const std::size_t size = std::size_t{1} << entry_extra(sub);
    for (std::size_t i = rev >> primary; i < size; i += std::size_t{1} << (len - primary))
      table[entry_value(sub) + i] = with_length;
  }
  return true;
}

// Two literals in one entry where both codes fit in the primary bits
// together: FASTQ's literals (bases, quality characters) have codes of 3 to 7
// bits, so most literal pairs decode with one lookup. Single entries are
// read from `single`, a copy of the primary table as build_table made it.
void pair_literals(std::uint32_t* table, unsigned primary) {
  const std::size_t primary_size = std::size_t{1} << primary;
  std::array<std::uint32_t, std::size_t{1} << literal_bits> single;
  std::copy(table, table + primary_size, single.begin());
  for (std::size_t bits = 0; bits < primary_size; ++bits) {
    const std::uint32_t first = single[bits];
    if (entry_kind(first) != literal) continue;
    const unsigned first_length = entry_drop(first);
    const std::uint32_t second = single[bits >> first_length];
    // The second code must fit in the bits left, so that the entry at
    // `bits >> first_length` (upper bits zero) is the one for those bits.
    if (entry_kind(second) != literal || first_length + entry_drop(second) > primary) continue;
    table[bits] = entry(literal, entry_value(first) | entry_value(second) << 8, 2) |
                  (first_length + entry_drop(second));
  }
}

struct Tables {
  std::uint32_t literal[literal_table_size];
  std::uint32_t distance[distance_table_size];
};

// The fixed-Huffman block's tables (RFC 1951 3.2.6), built once; symbols 286,
// 287 and distances 30, 31 decode and are then refused, as in zlib.
const Tables& fixed_tables() {
  static const Tables tables = [] {
    Tables t{};
    std::array<std::uint8_t, 288> lengths{};
    std::fill(lengths.begin(), lengths.begin() + 144, 8);
    std::fill(lengths.begin() + 144, lengths.begin() + 256, 9);
    std::fill(lengths.begin() + 256, lengths.begin() + 280, 7);
    std::fill(lengths.begin() + 280, lengths.end(), 8);
    build_table(lengths.data(), 288, t.literal, literal_bits, literal_table_size, false, literal_length_entry);
    pair_literals(t.literal, literal_bits);
    std::array<std::uint8_t, 32> distances{};
    distances.fill(5);
    build_table(distances.data(), 32, t.distance, distance_bits, distance_table_size, false, distance_entry);
    return t;
  }();
  return tables;
}

// Little-endian bits, 56 to 63 of them in `buffer` after each refill.
struct BitReader {
  BitReader(const unsigned char* data, std::size_t size, std::uint64_t bit)
      : data(data), next(data + bit / 8), limit(data + size + 8) {
    refill();
    drop(static_cast<unsigned>(bit % 8));
  }
  // False once the reader has gone well past the data (into the padding).
  bool refill() {
    std::uint64_t word;
    std::memcpy(&word, next, 8);
    buffer |= word << count;
    next += (63 - count) >> 3;
    count |= 56;
    return next <= limit;
  }
  std::uint32_t peek(unsigned n) const { return static_cast<std::uint32_t>(buffer & ((std::uint64_t{1} << n) - 1)); }
  void drop(unsigned n) {
    buffer >>= n;
    count -= n;
  }
  std::uint32_t take(unsigned n) {
    const std::uint32_t v = peek(n);
    drop(n);
    return v;
  }
  std::uint64_t position() const { return static_cast<std::uint64_t>(next - data) * 8 - count; }
  // Continues at byte offset `byte` (after a stored block).
  void restart_at(std::size_t byte) {
    next = data + byte;
    buffer = 0;
    count = 0;
    refill();
  }

  const unsigned char* data;
  const unsigned char* next;
  const unsigned char* limit;
  std::uint64_t buffer = 0;
  unsigned count = 0;
};

// One Huffman symbol through a two-level table.
inline std::uint32_t lookup(const std::uint32_t* table, unsigned primary, std::uint64_t bits) {
  std::uint32_t e = table[bits & ((1u << primary) - 1)];
  if (entry_kind(e) == subtable) e = table[entry_value(e) + ((bits >> primary) & ((1u << entry_extra(e)) - 1))];
  return e;
}

// A dynamic block's code lengths after its 3 type bits (the code-length
// code, then the lengths of both codes), with zlib's checks.
bool read_code_lengths(BitReader& in, std::array<std::uint8_t, 320>& lengths, unsigned& literals,
                       unsigned& distances) {
  literals = in.take(5) + 257;
  distances = in.take(5) + 1;
  const unsigned header_codes = in.take(4) + 4;
  if (literals > 286 || distances > 30 || !in.refill()) return false;
  std::array<std::uint8_t, 19> code_lengths{};
  for (unsigned i = 0; i < header_codes; ++i) {
    if (i == 10 && !in.refill()) return false;  // 19 lengths are 57 bits: more than one refill holds
    code_lengths[code_length_order[i]] = static_cast<std::uint8_t>(in.take(3));
  }
  std::uint32_t code_table[1u << code_length_bits];
  if (!build_table(code_lengths.data(), 19, code_table, code_length_bits, 1u << code_length_bits, true,
                   code_length_entry))
    return false;

  lengths.fill(0);
  const unsigned total = literals + distances;
  for (unsigned i = 0; i < total;) {
    if (!in.refill()) return false;
    const std::uint32_t e = code_table[in.peek(code_length_bits)];
    if (entry_kind(e) != literal) return false;
    in.drop(entry_drop(e));
    const unsigned symbol = entry_value(e);
    if (symbol < 16) {
      lengths[i++] = static_cast<std::uint8_t>(symbol);
      continue;
    }
    unsigned repeat = 0;
    std::uint8_t value = 0;
    if (symbol == 16) {
      if (i == 0) return false;
      value = lengths[i - 1];
      repeat = 3 + in.take(2);
    } else if (symbol == 17) {
      repeat = 3 + in.take(3);
    } else {
      repeat = 11 + in.take(7);
    }
    if (i + repeat > total) return false;
    std::fill_n(lengths.begin() + i, repeat, value);
    i += repeat;
  }
  return lengths[256] != 0;
}

// build_table's acceptance rule alone, without building: complete, or (for
// these codes) a single code of length 1, or (distances) no code at all.
bool acceptable_code(const std::uint8_t* lengths, unsigned count, bool may_be_empty) {
  std::array<unsigned, 16> per_length{};
  for (unsigned s = 0; s < count; ++s) ++per_length[lengths[s]];
  per_length[0] = 0;
  unsigned longest = 15;
  while (longest > 0 && per_length[longest] == 0) --longest;
  if (longest == 0) return may_be_empty;
  int left = 1;
  for (unsigned len = 1; len <= 15; ++len) {
    left = (left << 1) - static_cast<int>(per_length[len]);
    if (left < 0) return false;
  }
  return left == 0 || longest == 1;
}

bool read_dynamic_header(BitReader& in, Tables& tables) {
  std::array<std::uint8_t, 320> lengths;
  unsigned literals = 0, distances = 0;
  if (!read_code_lengths(in, lengths, literals, distances)) return false;
  if (!build_table(lengths.data(), literals, tables.literal, literal_bits, literal_table_size, false,
                   literal_length_entry))
    return false;
  pair_literals(tables.literal, literal_bits);
  return build_table(lengths.data() + literals, distances, tables.distance, distance_bits, distance_table_size,
                     false, distance_entry);
}

// For the search: whether 13 header bits (final, type, HLIT, HDIST) may
// start a dynamic block, and the Kraft sum (in 1/128) of four 3-bit
// code-length-code lengths.
struct SearchTables {
  std::array<bool, 1u << 13> header{};
  std::array<std::uint8_t, 1u << 12> kraft{};
  SearchTables() {
    for (unsigned bits = 0; bits < header.size(); ++bits)
      header[bits] = ((bits >> 1) & 3) == 2 && ((bits >> 3) & 31) <= 29 && ((bits >> 8) & 31) <= 29;
    for (unsigned bits = 0; bits < kraft.size(); ++bits) {
      unsigned sum = 0;
      for (unsigned i = 0; i < 4; ++i) {
        const unsigned len = (bits >> (3 * i)) & 7;
        if (len != 0) sum += 128u >> len;
      }
      kraft[bits] = static_cast<std::uint8_t>(sum);
    }
  }
};

// The first bit in [bit, end) whose 13 header bits may start a dynamic
// block (SearchTables::header's test: type 2, at most 286 literal/length
// and 30 distance codes), or `end`: 32 positions per step with word
// operations, as about three positions in four fail already here.
std::uint64_t next_header_candidate(const unsigned char* data, std::uint64_t bit, std::uint64_t end) {
  while (bit < end) {
    std::uint64_t word;
    std::memcpy(&word, data + bit / 8, 8);
    word >>= bit % 8;  // 56 or more valid bits: positions 0 to 31 and their 13 bits
    // Bit i set: position bit + i has type bits 01 (read low first: 0, then 1)...
    std::uint64_t candidates = ~(word >> 1) & (word >> 2);
    // ... and neither 5-bit count is 30 or 31 (its top four bits all set).
    candidates &= ~((word >> 4) & (word >> 5) & (word >> 6) & (word >> 7));
    candidates &= ~((word >> 9) & (word >> 10) & (word >> 11) & (word >> 12));
    candidates &= 0xffffffffu;
    if (candidates != 0) return std::min(end, bit + static_cast<unsigned>(std::countr_zero(candidates)));
    bit += 32;
  }
  return end;
}

// Necessary conditions for a dynamic block header at `bit`, cheapest first:
// type bits, symbol counts, a complete code-length code, code lengths that
// decode, and both codes acceptable (no decoding tables built).
bool may_start_dynamic_block(const unsigned char* data, std::size_t size, std::uint64_t bit) {
  static const SearchTables tables;
  std::uint64_t word;
  std::memcpy(&word, data + bit / 8, 8);
  word >>= bit % 8;
  if (!tables.header[word & 0x1fff]) return false;
  const unsigned header_codes = static_cast<unsigned>((word >> 13) & 15) + 4;
  std::uint64_t lengths;
  std::memcpy(&lengths, data + (bit + 17) / 8, 8);
  lengths >>= (bit + 17) % 8;
  lengths &= (std::uint64_t{1} << (3 * header_codes)) - 1;
  const unsigned kraft = tables.kraft[lengths & 0xfff] + tables.kraft[(lengths >> 12) & 0xfff] +
                         tables.kraft[(lengths >> 24) & 0xfff] + tables.kraft[(lengths >> 36) & 0xfff] +
                         tables.kraft[(lengths >> 48) & 0xfff];
  if (kraft != 128) return false;
  // The code lengths that follow, and both codes acceptable.
  BitReader in(data, size, bit + 3);
  std::array<std::uint8_t, 320> code_lengths;
  unsigned literals = 0, distances = 0;
  return read_code_lengths(in, code_lengths, literals, distances) &&
         acceptable_code(code_lengths.data(), literals, false) &&
         acceptable_code(code_lengths.data() + literals, distances, true);
}

// Masks of a word's first 0 to 16 bytes as two little-endian words: the
// part of a match's last 16-byte (or 8-byte) step that belongs to it.
struct TailMasks {
  std::array<std::uint64_t, 17> low{}, high{};
  constexpr TailMasks() {
    for (unsigned bytes = 0; bytes <= 16; ++bytes) {
      low[bytes] = bytes >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * bytes)) - 1;
      high[bytes] = bytes >= 16 ? ~std::uint64_t{0} : bytes <= 8 ? 0 : (std::uint64_t{1} << (8 * (bytes - 8))) - 1;
    }
  }
};
constexpr TailMasks tail_masks;

// A match of `length` bytes from `distance` back within the output so far.
// Copies in words where the distance allows (each word reads only bytes
// already written; up to 15 bytes written past the match's end, which the
// caller's room allows) and returns the OR of the match's source bytes, so
// a copy of unknown window bytes (high bit set) is seen at the cost of one
// OR per word.
inline std::uint64_t copy_match(unsigned char* to, std::uint32_t distance, std::uint32_t length) {
  const unsigned char* from = to - distance;
  std::uint64_t seen = 0;
  if (distance >= 16) {
    std::uint32_t k = 0;
    for (;; k += 16) {
      std::uint64_t low, high;
      std::memcpy(&low, from + k, 8);
      std::memcpy(&high, from + k + 8, 8);
      std::memcpy(to + k, &low, 8);
      std::memcpy(to + k + 8, &high, 8);
      if (k + 16 >= length) {
        const std::uint32_t left = length - k;
        return seen | (low & tail_masks.low[left]) | (high & tail_masks.high[left]);
      }
      seen |= low | high;
    }
  }
  if (distance >= 8) {
    for (std::uint32_t k = 0;; k += 8) {
      std::uint64_t word;
      std::memcpy(&word, from + k, 8);
      std::memcpy(to + k, &word, 8);
      if (k + 8 >= length) return seen | (word & tail_masks.low[length - k]);
      seen |= word;
    }
  }
  if (distance == 1) {
    // A run of one byte (quality strings): that byte in every byte of a word.
    const std::uint64_t word = from[0] * 0x0101010101010101ull;
    for (std::uint32_t k = 0; k < length; k += 8) std::memcpy(to + k, &word, 8);
    return from[0];
  }
  for (std::uint32_t k = 0; k < length; ++k) {
    to[k] = from[k];
    seen |= to[k];
  }
  return seen;
}

// How a block's decoding ended.
enum class BlockEnd { done, refused };

// The Huffman-coded data of one block, appended to out.bytes at `n`.
BlockEnd decode_huffman(BitReader& reader, const Tables& tables, bool at_stream_start, DecodedBytes& out,
                        std::size_t& decoded) {
  // The bit reader and the count in locals: the byte stores below may alias
  // anything reached through a reference, so the compiler would keep those
  // in memory, storing and reloading them around every byte.
  BitReader in = reader;
  std::size_t n = decoded;
  std::size_t copy_count = out.copy_count;
  const auto finish = [&](BlockEnd end) {
    reader = in;
    decoded = n;
    out.copy_count = copy_count;
    return end;
  };
  // Room for the longest match and the copy's overshoot.
  constexpr std::size_t room = 258 + 16 + 8;
  constexpr std::uint64_t high_bits = 0x8080808080808080ull;
  unsigned char* o = reinterpret_cast<unsigned char*>(out.bytes.data());
  std::size_t capacity = out.bytes.capacity();
  out.reserve_copies(std::size_t{1} << 16);
  WindowCopy* copies = out.copies.get();
  std::size_t copy_room = out.copy_capacity;
  if (!in.refill()) return finish(BlockEnd::refused);
  std::uint32_t e = lookup(tables.literal, literal_bits, in.buffer);
  for (;;) {
    if (n + room > capacity) {
      out.size = n;
      if (!out.reserve(n + room)) return finish(BlockEnd::refused);
      o = reinterpret_cast<unsigned char*>(out.bytes.data());
      capacity = out.bytes.capacity();
    }
    if (copy_count == copy_room) {  // a match adds at most one
      out.copy_count = copy_count;
      out.reserve_copies(copy_room + 1);
      copies = out.copies.get();
      copy_room = out.copy_capacity;
    }
    // Here `e` is the entry at the head of the bits and at least 56 bits
    // are in the buffer. A refill only adds bits above those there, so an
    // entry looked up with 15 or more bits in the buffer stays valid.
    if (entry_kind(e) == literal) {
      // One or two bytes per entry, both stored (the second is overwritten
      // when there is one). At least 41 bits are left after one entry, 26
      // after two: enough for three entries without a refill.
      const auto put = [&](std::uint32_t literals) {
        in.drop(entry_drop(literals));
        const auto bytes = static_cast<std::uint16_t>(entry_value(literals));
        std::memcpy(o + n, &bytes, 2);
        n += entry_extra(literals);
      };
      put(e);
      e = lookup(tables.literal, literal_bits, in.buffer);
      if (entry_kind(e) == literal) {
        put(e);
        e = lookup(tables.literal, literal_bits, in.buffer);
        if (entry_kind(e) == literal) {
          put(e);
          if (!in.refill()) return finish(BlockEnd::refused);
          e = lookup(tables.literal, literal_bits, in.buffer);
          continue;
        }
      }
      if (!in.refill()) return finish(BlockEnd::refused);
      continue;
    }
    if (entry_kind(e) != length) {
      if (entry_kind(e) != end_of_block) return finish(BlockEnd::refused);
      in.drop(entry_drop(e));
      return finish(BlockEnd::done);
    }
    // 56 bits hold the longest length and distance codes with their extra bits (48).
    in.drop(entry_drop(e));
    const std::uint32_t length = entry_value(e) + in.take(entry_extra(e));
    e = lookup(tables.distance, distance_bits, in.buffer);
    if (entry_kind(e) != distance) return finish(BlockEnd::refused);
    in.drop(entry_drop(e));
    const std::uint32_t distance = entry_value(e) + in.take(entry_extra(e));
    // The next entry, looked up before the copy so that its table load
    // overlaps it.
    if (!in.refill()) return finish(BlockEnd::refused);
    e = lookup(tables.literal, literal_bits, in.buffer);
    // Written ahead and kept only if it copied window bytes: a branch here
    // would be mispredicted at about every other match of FASTQ.
    copies[copy_count] = {static_cast<std::uint32_t>(n), static_cast<std::uint16_t>(distance),
                          static_cast<std::uint16_t>(length)};
    if (distance <= n) {
      copy_count += (copy_match(o + n, distance, length) & high_bits) != 0;
    } else {
      if (at_stream_start) return finish(BlockEnd::refused);  // zlib: "invalid distance too far back"
      // Reaching into the window: unknown bytes until resolved; the rest
      // copied as they stand (resolved with the copy).
      const std::int64_t first = static_cast<std::int64_t>(n) - distance;
      for (std::uint32_t k = 0; k < length; ++k) {
        const std::int64_t from = first + k;
        o[n + k] = from < 0 ? window_byte : o[from];
      }
      ++copy_count;
    }
    n += length;
  }
}

bool decode_stored(BitReader& in, const unsigned char* data, std::size_t size, DecodedBytes& out, std::size_t& n) {
  in.drop(in.count & 7);  // to a byte boundary
  const std::uint32_t length = in.take(16);
  const std::uint32_t complement = in.take(16);
  if (length != (~complement & 0xffff)) return false;
  const std::size_t byte = in.position() / 8;
  if (byte + length > size) return false;
  out.size = n;
  if (!out.reserve(n + length + 258)) return false;
  const unsigned char* from = data + byte;
  if (!std::all_of(from, from + length, [](unsigned char c) { return text_bytes[c]; })) return false;
  std::memcpy(out.bytes.data() + n, from, length);
  n += length;
  in.restart_at(byte + length);
  return true;
}

// Blocks from `start_bit` (decode_deflate_chunk's rules).
ChunkDecode decode_blocks(const unsigned char* data, std::size_t size, std::uint64_t start_bit,
                          std::uint64_t stop_bit, bool at_stream_start, DecodedBytes& out) {
  ChunkDecode result;
  result.start_bit = start_bit;
  out.size = 0;
  out.copy_count = 0;
  if (start_bit >= std::uint64_t{size} * 8 || !out.reserve(std::size_t{1} << 20)) return result;
  // Dynamic tables: one set per thread, rebuilt for every block.
  thread_local const std::unique_ptr<Tables> tables = std::make_unique<Tables>();
  BitReader in(data, size, start_bit);
  std::size_t n = 0;
  bool ok = true;
  for (;;) {
    const std::uint64_t position = in.position();
    if (position >= std::uint64_t{size} * 8 || !in.refill()) {
      ok = false;
      break;
    }
    const bool last = in.peek(1) != 0;
    const unsigned type = (in.buffer >> 1) & 3;
    if (type == 2 && position >= stop_bit) {
      result.end = ChunkDecode::End::boundary;
      result.end_bit = position;
      break;
    }
    in.drop(3);
    BlockEnd block = BlockEnd::refused;
    if (type == 0) {
      block = decode_stored(in, data, size, out, n) ? BlockEnd::done : BlockEnd::refused;
    } else if (type == 1) {
      block = decode_huffman(in, fixed_tables(), at_stream_start, out, n);
    } else if (type == 2 && read_dynamic_header(in, *tables)) {
      block = decode_huffman(in, *tables, at_stream_start, out, n);
    }
    if (block != BlockEnd::done) {
      ok = false;
      break;
    }
    if (last) {
      result.end = ChunkDecode::End::final_block;
      result.end_bit = in.position();
      break;
    }
  }
  out.size = n;
  if (!ok || result.end_bit > std::uint64_t{size} * 8) result.end = ChunkDecode::End::refused;
  return result;
}

}  // namespace

ChunkDecode decode_deflate_chunk(const unsigned char* data, std::size_t size, std::uint64_t start_bit,
                                 std::uint64_t stop_bit, bool at_stream_start, DecodedBytes& out) {
  return decode_blocks(data, size, start_bit, stop_bit, at_stream_start, out);
}

ChunkDecode find_and_decode_deflate_chunk(const unsigned char* data, std::size_t size, std::uint64_t search_from,
                                          std::uint64_t search_to, std::uint64_t stop_bit, DecodedBytes& out) {
  // A false start almost always fails within a few hundred bytes (an
  // invalid code, a non-text byte): one refused before this many bytes
  // only means the search goes on; the first that gets further decides
  // (the link checks it ends where the piece before stopped).
  constexpr std::size_t trial_bytes = std::size_t{1} << 16;
  search_to = std::min<std::uint64_t>(search_to, std::uint64_t{size} * 8);
  const std::uint64_t started = thread_cpu_ns();
  for (std::uint64_t bit = search_from;; ++bit) {
    bit = next_header_candidate(data, bit, search_to);
    if (bit >= search_to) break;
    if (!may_start_dynamic_block(data, size, bit)) continue;
    const std::uint64_t search_ns = thread_cpu_ns() - started;
    ChunkDecode decoded = decode_blocks(data, size, bit, stop_bit, false, out);
    if (decoded.end == ChunkDecode::End::refused && out.size < trial_bytes) continue;
    decoded.search_ns = search_ns;
    return decoded;
  }
  out.size = 0;
  out.copy_count = 0;
  ChunkDecode none;
  none.search_ns = thread_cpu_ns() - started;
  return none;
}

void resolve_window_copies(DecodedBytes& out, const unsigned char* window) {
  unsigned char* o = reinterpret_cast<unsigned char*>(out.bytes.data());
  const unsigned char* window_end = window + deflate_window_size;
  // In decoding order, so a copy's source is resolved before it is read.
  // Most copies are short (a few bytes of a header or a quality string):
  // whole words, the last one merged into the bytes after the copy, which
  // stay as they are (the room after the output keeps that in bounds).
  for (std::size_t i = 0; i < out.copy_count; ++i) {
    const WindowCopy& copy = out.copies[i];
    unsigned char* to = o + copy.to;
    const std::int64_t first = static_cast<std::int64_t>(copy.to) - copy.distance;  // < 0: in the window
    const std::uint32_t length = copy.length;
    if (first >= 0 && copy.distance >= 8) {
      // Each word reads only bytes before the ones it writes.
      const unsigned char* from = o + first;
      std::uint32_t k = 0;
      for (; k + 8 <= length; k += 8) std::memcpy(to + k, from + k, 8);
      if (k < length) {
        std::uint64_t source, target;
        std::memcpy(&source, from + k, 8);
        std::memcpy(&target, to + k, 8);
        const std::uint64_t mask = (std::uint64_t{1} << (8 * (length - k))) - 1;
        target = (source & mask) | (target & ~mask);
        std::memcpy(to + k, &target, 8);
      }
      continue;
    }
    // Byte by byte: from the window first, and LZ77 copies overlap their own output.
    std::uint32_t k = 0;
    for (; k < length && first + k < 0; ++k) to[k] = window_end[first + k];
    for (; k < length; ++k) to[k] = o[first + k];
  }
}

}  // namespace metawarp::io
