#pragma once
// A JSON object written field by field, in the order given: what
// --summary-json writes. Strings are escaped (control characters as \u00XX;
// bytes that are not UTF-8 become U+FFFD, so that any file name gives valid
// JSON); numbers that are not finite become null.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace metawarp::cli {

class JsonObject {
 public:
  JsonObject& add(std::string_view name, std::string_view text);
  // (A string literal would take the bool overload otherwise.)
  JsonObject& add(std::string_view name, const char* text) {
    return add(name, std::string_view(text));
  }
  JsonObject& add(std::string_view name, std::uint64_t number);
  // `decimals` places after the point.
  JsonObject& add(std::string_view name, double number, int decimals);
  JsonObject& add(std::string_view name, bool value);
  JsonObject& add(std::string_view name, const std::vector<std::string>& texts);
  JsonObject& add(std::string_view name, const JsonObject& object);
  JsonObject& add(std::string_view name, const std::vector<JsonObject>& objects);

  // One field per line, indented, ending in a newline (nested values on one
  // line each); compact: all on one line.
  std::string text(bool compact = false) const;

 private:
  JsonObject& field(std::string_view name, std::string value);

  std::vector<std::pair<std::string, std::string>> fields_;  // name, JSON value
};

// `text` as a JSON string, quotes included.
std::string json_string(std::string_view text);

}  // namespace metawarp::cli
