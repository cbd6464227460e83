#pragma once
// Byte-range checks over whole lines. Written as a branch-free reduction so
// the compiler vectorises them; the slow search for the offending byte only
// runs when a line is already known to be bad.
#include <cstddef>
#include <string>
#include <string_view>

namespace metawarp::io {

// True when every byte of `text` lies in [low, high].
inline bool all_bytes_in(std::string_view text, unsigned char low, unsigned char high) {
  const unsigned char width = static_cast<unsigned char>(high - low);
  unsigned char bad = 0;
  for (const char c : text) {
    bad |= static_cast<unsigned char>(static_cast<unsigned char>(c) - low) > width;
  }
  return bad == 0;
}

inline std::size_t first_byte_outside(std::string_view text, unsigned char low,
                                      unsigned char high) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < low || c > high) return i;
  }
  return text.size();
}

// A record's id: its header up to the first space or tab. A plain loop:
// find_first_of(" \t") calls memchr once per byte of the header.
inline std::string_view header_id(std::string_view header) {
  std::size_t i = 0;
  while (i < header.size() && header[i] != ' ' && header[i] != '\t') ++i;
  return header.substr(0, i);
}

// Header text: no control byte but the tab (non-ASCII UTF-8 text is fine).
inline bool all_header_chars(std::string_view text) {
  unsigned char bad = 0;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    bad |= static_cast<unsigned char>((u < 0x20) & (u != '\t'));
  }
  return bad == 0;
}

// Sequence characters: IUPAC letters in either case (other letters too, as
// tools write them), and the gap/stop symbols '-', '*', '.'.
inline bool is_sequence_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return static_cast<unsigned char>((u | 0x20) - 'a') < 26 || u == '-' || u == '*' || u == '.';
}

// Bitwise, not ||: without the short-circuit branches GCC vectorises the loop
// (5x faster on 150 bp reads at -O3).
inline bool all_sequence_chars(std::string_view text) {
  unsigned char bad = 0;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    const unsigned char letter = static_cast<unsigned char>((u | 0x20) - 'a') < 26;
    const unsigned char symbol = (u == '-') | (u == '*') | (u == '.');
    bad |= (letter | symbol) ^ 1;
  }
  return bad == 0;
}

inline std::size_t first_non_sequence_char(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (!is_sequence_char(text[i])) return i;
  return text.size();
}

// "'x'" for printable characters, "byte 0x1f" for anything else.
inline std::string describe_byte(char c) {
  const auto value = static_cast<unsigned char>(c);
  if (value >= 0x20 && value <= 0x7e) return std::string("character '") + c + "'";
  static constexpr char digits[] = "0123456789abcdef";
  return std::string("byte 0x") + digits[value >> 4] + digits[value & 0xf];
}

}  // namespace metawarp::io
