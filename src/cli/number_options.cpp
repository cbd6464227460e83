#include "cli/number_options.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <memory>
#include <string_view>
#include <utility>

namespace metawarp::cli {
namespace {

// The value as the message shows it: quoted when it is empty or holds blanks.
std::string shown(const std::string& text) {
  const bool plain = !text.empty() && std::none_of(text.begin(), text.end(), [](char c) {
    return std::isspace(static_cast<unsigned char>(c));
  });
  return plain ? text : "'" + text + "'";
}

[[noreturn]] void refuse(const std::string& option, const std::string& text,
                         const std::string& rule) {
  throw CLI::ValidationError(option + " " + shown(text) + ": must be " + rule);
}

// The multiplier a size's suffix stands for; 0 for an unknown suffix.
std::uint64_t size_unit(std::string_view suffix) {
  std::string lower(suffix);
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (lower.empty() || lower == "b") return 1;
  static constexpr std::array<std::pair<char, unsigned>, 4> units{
      {{'k', 10}, {'m', 20}, {'g', 30}, {'t', 40}}};
  const std::string rest = lower.substr(1);  // "", "b" or "ib": k, kb, kib
  for (const auto& [letter, shift] : units)
    if (lower[0] == letter && (rest.empty() || rest == "b" || rest == "ib"))
      return std::uint64_t(1) << shift;
  return 0;
}

}  // namespace

std::uint64_t parse_whole_number(const std::string& option, const std::string& text,
                                 std::uint64_t min, std::uint64_t max, bool size) {
  const std::string rule =
      (size ? "a size in bytes between " : "a whole number between ") + std::to_string(min) +
      " and " + std::to_string(max) +
      (size ? " (suffixes k, m, g, t: 2^10, 2^20, 2^30, 2^40)" : "");
  // Decimal digits only: no sign, no blanks, no 0x; a leading 0 is not octal.
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || (digits < text.size() && !size)) refuse(option, text, rule);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + digits, value);
  const std::uint64_t unit = size_unit(std::string_view(text).substr(digits));
  if (error != std::errc() || end != text.data() + digits || unit == 0 ||
      value > std::numeric_limits<std::uint64_t>::max() / unit)
    refuse(option, text, rule);
  value *= unit;
  if (value < min || value > max) refuse(option, text, rule);
  return value;
}

double parse_fraction(const std::string& option, const std::string& text, double min,
                      double max) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
      std::isnan(value) || value < min || value > max)
    refuse(option, text, "a number between " + CLI::detail::to_string(min) + " and " +
                             CLI::detail::to_string(max));
  return value;
}

namespace detail {

CLI::Option* add_checked_option(
    CLI::App& app, const std::string& names, const std::string& help, const char* type,
    const std::string& range, std::string default_text,
    std::function<void(const std::string& option, const std::string& text)> set) {
  // The option's name (its first long name) for the message, known once it exists.
  auto name = std::make_shared<std::string>();
  CLI::Option* option = app.add_option_function<std::string>(
      names, [name, set = std::move(set)](const std::string& text) { set(*name, text); }, help);
  *name = option->get_name();
  option->type_name(range.empty() ? std::string(type) : type + (":" + range))
      ->default_str(std::move(default_text));
  return option;
}

std::string range_text(std::uint64_t min, std::uint64_t max, std::uint64_t type_max) {
  return max == type_max ? std::string() : std::to_string(min) + ".." + std::to_string(max);
}

}  // namespace detail

CLI::Option* add_size(CLI::App& app, const std::string& names, std::uint64_t& value,
                      const std::string& help, std::uint64_t min, std::uint64_t max) {
  return detail::add_checked_option(
      app, names, help, size_type,
      detail::range_text(min, max, std::numeric_limits<std::uint64_t>::max()),
      std::to_string(value),
      [&value, min, max](const std::string& option, const std::string& text) {
        value = parse_whole_number(option, text, min, max, true);
      });
}

CLI::Option* add_fraction(CLI::App& app, const std::string& names, double& value,
                          const std::string& help, double min, double max) {
  return detail::add_checked_option(
      app, names, help, fraction_type,
      CLI::detail::to_string(min) + ".." + CLI::detail::to_string(max),
      CLI::detail::to_string(value),
      [&value, min, max](const std::string& option, const std::string& text) {
        value = parse_fraction(option, text, min, max);
      });
}

}  // namespace metawarp::cli
