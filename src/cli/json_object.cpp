#include "cli/json_object.hpp"

#include <cmath>
#include <cstdio>

namespace metawarp::cli {
namespace {

// The length of the UTF-8 sequence at the start of `s`, 0 when it is not one
// (overlong forms, surrogates and values above U+10FFFF included).
std::size_t utf8_sequence(std::string_view s) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  std::size_t length;
  char32_t code;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2, code = lead & 0x1F;
  else if (lead >= 0xE0 && lead <= 0xEF) length = 3, code = lead & 0x0F;
  else if (lead >= 0xF0 && lead <= 0xF4) length = 4, code = lead & 0x07;
  else return 0;
  if (s.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    code = code << 6 | (byte(i) & 0x3F);
  }
  const char32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

}  // namespace

std::string json_string(std::string_view text) {
  std::string out = "\"";
  while (!text.empty()) {
    const char c = text.front();
    const std::size_t length = utf8_sequence(text);
    if (length == 0) {
      out += "\\ufffd";
      text.remove_prefix(1);
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out.append(text.substr(0, length));
    }
    text.remove_prefix(length);
  }
  return out + "\"";
}

JsonObject& JsonObject::field(std::string_view name, std::string value) {
  fields_.emplace_back(json_string(name), std::move(value));
  return *this;
}

JsonObject& JsonObject::add(std::string_view name, std::string_view text) {
  return field(name, json_string(text));
}

JsonObject& JsonObject::add(std::string_view name, std::uint64_t number) {
  return field(name, std::to_string(number));
}

JsonObject& JsonObject::add(std::string_view name, double number, int decimals) {
  if (!std::isfinite(number)) return field(name, "null");
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, number);
  return field(name, text);
}

JsonObject& JsonObject::add(std::string_view name, bool value) {
  return field(name, value ? "true" : "false");
}

JsonObject& JsonObject::add(std::string_view name, const std::vector<std::string>& texts) {
  std::string list = "[";
  for (std::size_t i = 0; i < texts.size(); ++i) list += (i ? ", " : "") + json_string(texts[i]);
  return field(name, list + "]");
}

JsonObject& JsonObject::add(std::string_view name, const JsonObject& object) {
  return field(name, object.text(true));
}

JsonObject& JsonObject::add(std::string_view name, const std::vector<JsonObject>& objects) {
  std::string list = "[";
  for (std::size_t i = 0; i < objects.size(); ++i) list += (i ? ", " : "") + objects[i].text(true);
  return field(name, list + "]");
}

std::string JsonObject::text(bool compact) const {
  const char* separator = compact ? ", " : ",\n  ";
  std::string out = compact ? "{" : "{\n  ";
  for (std::size_t i = 0; i < fields_.size(); ++i)
    out += (i ? separator : "") + fields_[i].first + ": " + fields_[i].second;
  return out + (compact ? "}" : "\n}\n");
}

}  // namespace metawarp::cli
