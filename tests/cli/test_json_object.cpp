// The JSON --summary-json writes: strings escaped so that any file name gives
// valid JSON, numbers that are not finite as null, fields in the order given.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli/json_object.hpp"

using metawarp::cli::json_string;
using metawarp::cli::JsonObject;

TEST_CASE("json_string escapes what JSON requires and keeps UTF-8") {
  CHECK(json_string("plain/path.fq") == "\"plain/path.fq\"");
  CHECK(json_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json_string(std::string("tab\there\nnul\0end", 16)) ==
        "\"tab\\u0009here\\u000anul\\u0000end\"");
  CHECK(json_string("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\xa7\xac") ==
        "\"\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\xa7\xac\"");
}

TEST_CASE("json_string writes bytes that are not UTF-8 as U+FFFD") {
  CHECK(json_string("a\xff" "b") == "\"a\\ufffdb\"");
  CHECK(json_string("\xc3") == "\"\\ufffd\"");                 // cut short
  CHECK(json_string("\xc0\xaf") == "\"\\ufffd\\ufffd\"");      // overlong '/'
  CHECK(json_string("\xed\xa0\x80") == "\"\\ufffd\\ufffd\\ufffd\"");  // a surrogate
  CHECK(json_string("\xf4\x90\x80\x80") == "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // > U+10FFFF
}

TEST_CASE("JsonObject writes its fields in order, nested values on one line") {
  JsonObject inner;
  inner.add("k", std::uint64_t(16)).add("path", "db.mwdb");
  JsonObject object;
  object.add("name", "x")
      .add("count", std::uint64_t(3))
      .add("fraction", 0.5, 3)
      .add("missing", std::numeric_limits<double>::quiet_NaN(), 3)
      .add("paired", true)
      .add("inputs", std::vector<std::string>{"a.fq", "b.fq"})
      .add("database", inner)
      .add("samples", std::vector<JsonObject>{inner, inner});
  CHECK(object.text() ==
        "{\n"
        "  \"name\": \"x\",\n"
        "  \"count\": 3,\n"
        "  \"fraction\": 0.500,\n"
        "  \"missing\": null,\n"
        "  \"paired\": true,\n"
        "  \"inputs\": [\"a.fq\", \"b.fq\"],\n"
        "  \"database\": {\"k\": 16, \"path\": \"db.mwdb\"},\n"
        "  \"samples\": [{\"k\": 16, \"path\": \"db.mwdb\"}, {\"k\": 16, \"path\": \"db.mwdb\"}]\n"
        "}\n");
  CHECK(JsonObject().text(true) == "{}");
}
