// RFC 1951 decoded into 16-bit symbols (deflate_chunk_decoder.hpp). Every
// check zlib's inflate makes is made here too, with zlib's tables (length and
// distance bases, which codes may be incomplete), so a stream this decoder
// takes is one zlib takes and decodes to the same bytes.
#include "io/deflate_chunk_decoder.hpp"
#include "io/deflate_stage_clock.hpp"

#include <algorithm>
#include <cstdint>
#include <array>
#include <cstring>
#include <vector>

namespace metawarp::io {

bool SymbolBuffer::reserve(std::size_t count) {
  if (count <= capacity_) return true;
  if (count > limit_) return false;
  const std::size_t capacity = std::min(limit_, std::max(count, 2 * capacity_ + (std::size_t{1} << 20)));
  auto grown = std::make_unique_for_overwrite<std::uint16_t[]>(capacity);
  if (size_ > 0) std::memcpy(grown.get(), data_.get(), size_ * sizeof(std::uint16_t));
  data_ = std::move(grown);
  capacity_ = capacity;
  return true;
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
// serial decoder (and false block starts show themselves quickly).
constexpr std::array<bool, 256> text_bytes = [] {
  std::array<bool, 256> text{};
  for (int c = 0x20; c <= 0x7e; ++c) text[c] = true;
  text['\t'] = text['\n'] = text['\r'] = true;
  return text;
}();

// A Huffman table entry: symbol (or subtable offset), code length (or
// subtable bits) and kind.
enum : std::uint32_t { symbol_entry = 0, subtable_entry = 1, invalid_entry = 2 };
constexpr std::uint32_t entry(std::uint32_t value, std::uint32_t length, std::uint32_t kind) {
  return value | length << 16 | kind << 24;
}
constexpr std::uint32_t entry_value(std::uint32_t e) { return e & 0xffff; }
constexpr std::uint32_t entry_length(std::uint32_t e) { return (e >> 16) & 0xff; }
constexpr std::uint32_t entry_kind(std::uint32_t e) { return e >> 24; }

constexpr unsigned literal_bits = 10, distance_bits = 8, code_length_bits = 7;
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
// `primary` bits, then subtables for longer codes. False: zlib refuses it too,
// or it needs more room than `capacity` (refused: safe).
bool build_table(const std::uint8_t* lengths, unsigned count, std::uint32_t* table, unsigned primary,
                 std::size_t capacity, bool code_lengths, bool text_literals = false) {
  // A literal that is no text byte decodes to an invalid entry: refused
  // where it is used, at no cost per literal.
  const auto symbol = [&](unsigned s, unsigned len) {
    return text_literals && s < 256 && !text_bytes[s] ? entry(s, len, invalid_entry) : entry(s, len, symbol_entry);
  };
  std::array<unsigned, 16> per_length{};
  for (unsigned s = 0; s < count; ++s) ++per_length[lengths[s]];
  per_length[0] = 0;
  unsigned longest = 15;
  while (longest > 0 && per_length[longest] == 0) --longest;
  const std::size_t primary_size = std::size_t{1} << primary;
  std::fill(table, table + primary_size, entry(0, 0, invalid_entry));
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
    table[prefix] = entry(static_cast<std::uint32_t>(used), sub_bits[prefix], subtable_entry);
    std::fill(table + used, table + used + size, entry(0, 0, invalid_entry));
    used += size;
  }
  for (unsigned s = 0; s < count; ++s) {
    const unsigned len = lengths[s];
    if (len == 0) continue;
    const std::uint32_t rev = reversed[s];
    if (len <= primary) {
      for (std::size_t i = rev; i < primary_size; i += std::size_t{1} << len) table[i] = symbol(s, len);
      continue;
    }
    const std::uint32_t sub = table[rev & (primary_size - 1)];
    const std::size_t size = std::size_t{1} << entry_length(sub);
    for (std::size_t i = rev >> primary; i < size; i += std::size_t{1} << (len - primary))
      table[entry_value(sub) + i] = symbol(s, len);
  }
  return true;
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
    build_table(lengths.data(), 288, t.literal, literal_bits, literal_table_size, false, true);
    std::array<std::uint8_t, 32> distances{};
    distances.fill(5);
    build_table(distances.data(), 32, t.distance, distance_bits, distance_table_size, false);
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
  if (entry_kind(e) == subtable_entry)
    e = table[entry_value(e) + ((bits >> primary) & ((1u << entry_length(e)) - 1))];
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
  if (!build_table(code_lengths.data(), 19, code_table, code_length_bits, 1u << code_length_bits, true)) return false;

  lengths.fill(0);
  const unsigned total = literals + distances;
  for (unsigned i = 0; i < total;) {
    if (!in.refill()) return false;
    const std::uint32_t e = code_table[in.peek(code_length_bits)];
    if (entry_kind(e) != symbol_entry) return false;
    in.drop(entry_length(e));
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
  return build_table(lengths.data(), literals, tables.literal, literal_bits, literal_table_size, false, true) &&
         build_table(lengths.data() + literals, distances, tables.distance, distance_bits, distance_table_size,
                     false);
}

// Necessary conditions for a dynamic block header at `bit`, cheapest first:
// type bits, symbol counts, a complete code-length code, code lengths that
// decode, and both codes acceptable (no decoding tables built).
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

// How a block's decoding ended.
enum class BlockEnd { done, refused, limit };

// The Huffman-coded data of one block; `limit`: the symbols after which a
// trial decode stops (BlockEnd::limit).
BlockEnd decode_huffman(BitReader& in, const Tables& tables, bool at_stream_start, std::size_t limit,
                        SymbolBuffer& out, std::size_t& n) {
  std::uint16_t* o = out.data();
  // Room for the longest match and the copy's overshoot.
  constexpr std::size_t room = 258 + 8;
  std::size_t capacity = std::min(out.capacity(), limit + room);
  for (;;) {
    if (n + room > capacity) {
      if (n >= limit) return BlockEnd::limit;
      out.set_size(n);
      if (!out.reserve(n + room)) return BlockEnd::refused;
      o = out.data();
      capacity = std::min(out.capacity(), limit + room);
    }
    if (!in.refill()) return BlockEnd::refused;
    std::uint32_t e = lookup(tables.literal, literal_bits, in.buffer);
    if (entry_kind(e) != symbol_entry) return BlockEnd::refused;
    in.drop(entry_length(e));
    const std::uint32_t symbol = entry_value(e);
    if (symbol < 256) {
      o[n++] = static_cast<std::uint16_t>(symbol);
      // At least 41 bits are left: enough for a second literal without a refill.
      e = lookup(tables.literal, literal_bits, in.buffer);
      if (entry_kind(e) == symbol_entry && entry_value(e) < 256) {
        in.drop(entry_length(e));
        o[n++] = static_cast<std::uint16_t>(entry_value(e));
      }
      continue;
    }
    if (symbol == 256) return BlockEnd::done;
    const std::uint32_t length_code = symbol - 257;
    if (length_code >= length_base.size()) return BlockEnd::refused;
    const std::uint32_t length = length_base[length_code] + in.take(length_extra[length_code]);
    e = lookup(tables.distance, distance_bits, in.buffer);
    if (entry_kind(e) != symbol_entry) return BlockEnd::refused;
    in.drop(entry_length(e));
    const std::uint32_t distance_code = entry_value(e);
    if (distance_code >= distance_base.size()) return BlockEnd::refused;
    const std::uint32_t distance = distance_base[distance_code] + in.take(distance_extra[distance_code]);
    std::uint16_t* to = o + n;
    if (distance <= n) {
      const std::uint16_t* from = to - distance;
      if (distance >= 8) {
        // 8 symbols at a time, up to 7 past the match's end (slack): each
        // group reads only symbols written before it.
        for (std::uint32_t k = 0; k < length; k += 8) std::memcpy(to + k, from + k, 8 * sizeof(std::uint16_t));
      } else {
        for (std::uint32_t k = 0; k < length; ++k) to[k] = from[k];
      }
    } else {
      if (at_stream_start) return BlockEnd::refused;  // zlib: "invalid distance too far back"
      // Before the chunk: markers into the window (distance <= 32768).
      const std::int64_t first = static_cast<std::int64_t>(n) - distance;
      for (std::uint32_t k = 0; k < length; ++k) {
        const std::int64_t from = first + k;
        to[k] = from < 0 ? static_cast<std::uint16_t>(deflate_first_marker + deflate_window_size + from)
                         : o[from];
      }
    }
    n += length;
  }
}

bool decode_stored(BitReader& in, const unsigned char* data, std::size_t size, SymbolBuffer& out, std::size_t& n) {
  in.drop(in.count & 7);  // to a byte boundary
  const std::uint32_t length = in.take(16);
  const std::uint32_t complement = in.take(16);
  if (length != (~complement & 0xffff)) return false;
  const std::size_t byte = in.position() / 8;
  if (byte + length > size) return false;
  out.set_size(n);
  if (!out.reserve(n + length + 258)) return false;
  std::uint16_t* o = out.data() + n;
  for (std::uint32_t i = 0; i < length; ++i) {
    const unsigned char c = data[byte + i];
    if (!text_bytes[c]) return false;
    o[i] = c;
  }
  n += length;
  in.restart_at(byte + length);
  return true;
}

}  // namespace

namespace {

// Blocks from `start_bit` (decode_deflate_chunk's rules); `limit`: stop after
// about that many symbols, setting `reached_limit` (a trial decode).
ChunkDecode decode_blocks(const unsigned char* data, std::size_t size, std::uint64_t start_bit,
                          std::uint64_t stop_bit, bool at_stream_start, std::size_t limit, SymbolBuffer& out,
                          bool& reached_limit) {
  ChunkDecode result;
  result.start_bit = start_bit;
  reached_limit = false;
  out.set_size(0);
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
      block = decode_huffman(in, fixed_tables(), at_stream_start, limit, out, n);
    } else if (type == 2 && read_dynamic_header(in, *tables)) {
      block = decode_huffman(in, *tables, at_stream_start, limit, out, n);
    }
    if (block == BlockEnd::limit) reached_limit = true;
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
  out.set_size(n);
  if (!ok || result.end_bit > std::uint64_t{size} * 8) result.end = ChunkDecode::End::refused;
  return result;
}

}  // namespace

ChunkDecode decode_deflate_chunk(const unsigned char* data, std::size_t size, std::uint64_t start_bit,
                                 std::uint64_t stop_bit, bool at_stream_start, SymbolBuffer& out) {
  bool reached_limit = false;
  return decode_blocks(data, size, start_bit, stop_bit, at_stream_start, SIZE_MAX / 2, out, reached_limit);
}

ChunkDecode find_and_decode_deflate_chunk(const unsigned char* data, std::size_t size, std::uint64_t search_from,
                                          std::uint64_t search_to, std::uint64_t stop_bit, SymbolBuffer& out) {
  // A false start almost always fails within a few hundred symbols (an
  // invalid code, a non-text byte); one that decodes this many is taken, and
  // the decode from it decides (the link checks it ends where the piece
  // before stopped).
  constexpr std::size_t trial_symbols = std::size_t{1} << 16;
  search_to = std::min<std::uint64_t>(search_to, std::uint64_t{size} * 8);
  const std::uint64_t started = thread_cpu_ns();
  for (std::uint64_t bit = search_from; bit < search_to; ++bit) {
    if (!may_start_dynamic_block(data, size, bit)) continue;
    const std::uint64_t search_ns = thread_cpu_ns() - started;
    bool reached_limit = false;
    ChunkDecode trial = decode_blocks(data, size, bit, stop_bit, false, trial_symbols, out, reached_limit);
    if (trial.end == ChunkDecode::End::refused && !reached_limit) continue;
    if (trial.end == ChunkDecode::End::refused) trial = decode_deflate_chunk(data, size, bit, stop_bit, false, out);
    trial.search_ns = search_ns;
    return trial;
  }
  out.set_size(0);
  ChunkDecode none;
  none.search_ns = thread_cpu_ns() - started;
  return none;
}

void resolve_symbols(const std::uint16_t* symbols, std::size_t count, const unsigned char* window, char* out) {
  // One table for both kinds of symbol: bytes map to themselves, markers to the window.
  std::vector<unsigned char> table(deflate_first_marker + deflate_window_size);
  for (unsigned i = 0; i < deflate_first_marker; ++i) table[i] = static_cast<unsigned char>(i);
  std::memcpy(table.data() + deflate_first_marker, window, deflate_window_size);
  for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<char>(table[symbols[i]]);
}

}  // namespace metawarp::io
