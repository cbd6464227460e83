#pragma once
// Every numeric option of every command is registered here, with the range
// it allows. A value is a plain decimal number inside the range (a size may
// end in k, m, g or t), or the command line is refused with one line naming
// the option, the value and the range:
//   metawarp: error: --batch-size -1: must be a whole number between 1 and 18446744073709551615
// CLI11's own conversion (2.1) is never used for a number: it takes "-1" for
// 2^64 - 1, anything past 2^64 for 2^64 - 1, and "010" for eight.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>

namespace metawarp::cli {

// The type names these options show in --help, which tests/cli's walk over
// the parser (test_number_options.cpp) also recognises. An option with an
// upper limit shows its range after the name: "N:1..32".
inline constexpr const char* whole_type = "N";
inline constexpr const char* size_type = "SIZE";
inline constexpr const char* fraction_type = "X";

// `text` as a whole number in [min, max]; with `size`, optionally followed by
// k, m, g or t (2^10 ... 2^40; any case; "kb", "KiB" too). Throws
// CLI::ValidationError "OPTION TEXT: must be ..." otherwise.
std::uint64_t parse_whole_number(const std::string& option, const std::string& text,
                                 std::uint64_t min, std::uint64_t max, bool size = false);
// `text` as a decimal number in [min, max] (not NaN). Throws as above.
double parse_fraction(const std::string& option, const std::string& text, double min, double max);

namespace detail {
// An option of one value whose text `set(option name, text)` checks and
// stores; --help shows `type`, with `range` when it is not empty.
CLI::Option* add_checked_option(
    CLI::App& app, const std::string& names, const std::string& help, const char* type,
    const std::string& range, std::string default_text,
    std::function<void(const std::string& option, const std::string& text)> set);
// "min..max" for --help, or "" when `max` is the type's own limit (`type_max`).
std::string range_text(std::uint64_t min, std::uint64_t max, std::uint64_t type_max);
}  // namespace detail

// A whole-number option stored in `value` (whose current value is the
// default shown in --help): [min, max], by default the type's own range.
template <class T>
CLI::Option* add_number(CLI::App& app, const std::string& names, T& value,
                        const std::string& help,
                        std::type_identity_t<T> min = std::numeric_limits<T>::min(),
                        std::type_identity_t<T> max = std::numeric_limits<T>::max()) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  if constexpr (std::is_signed_v<T>) {
    if (min < 0) throw std::logic_error(names + ": a negative minimum is not supported");
  }
  return detail::add_checked_option(
      app, names, help, whole_type,
      detail::range_text(std::uint64_t(min), std::uint64_t(max), std::numeric_limits<T>::max()),
      std::to_string(value),
      [&value, min, max](const std::string& option, const std::string& text) {
        value = T(parse_whole_number(option, text, std::uint64_t(min), std::uint64_t(max)));
      });
}

// A size in bytes (suffixes k, m, g, t), stored in `value`: [min, max].
CLI::Option* add_size(CLI::App& app, const std::string& names, std::uint64_t& value,
                      const std::string& help, std::uint64_t min = 0,
                      std::uint64_t max = std::numeric_limits<std::uint64_t>::max());

// A number with a fraction (--confidence), stored in `value`: [min, max].
CLI::Option* add_fraction(CLI::App& app, const std::string& names, double& value,
                          const std::string& help, double min, double max);

}  // namespace metawarp::cli
