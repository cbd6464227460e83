// Sample sheets (cli/sample_sheet.hpp): columns, comments, blank lines,
// paths relative to the sheet, and an error naming the sheet, the line and
// the problem for every kind of bad line.
#include <filesystem>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "cli/sample_sheet.hpp"
#include "scratch_dir.hpp"

using namespace metawarp;
namespace fs = std::filesystem;

namespace {

void touch(const fs::path& path) { std::ofstream(path) << "@r\nACGT\n+\nIIII\n"; }

// The message of the error parsing `text` as `sheet` gives (empty: none).
std::string sheet_error(const std::string& text, const fs::path& sheet) {
  try {
    cli::parse_sample_sheet(text, sheet);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a sample sheet: names, R1, optional R2, comments and blank lines", "[sample_sheet]") {
  test::ScratchDir dir("sheet");
  fs::create_directory(dir / "reads");
  for (const char* name : {"a_1.fq", "a_2.fq", "b.fq", "c_1.fq"}) touch(dir / "reads" / name);
  const fs::path sheet = dir / "run.tsv";
  const std::string text =
      "# name\tR1\tR2\n"
      "\n"
      "A\treads/a_1.fq\treads/a_2.fq\r\n"
      "   \t \n"
      "  # an indented comment\n"
      "B\treads/b.fq\n"
      "C\t" + (dir / "reads" / "c_1.fq").string() + "\t\n";  // absolute; empty R2 column
  const auto samples = cli::parse_sample_sheet(text, sheet);
  REQUIRE(samples.size() == 3);
  CHECK(samples[0].name == "A");
  CHECK(samples[0].reads ==
        std::vector<std::string>{(dir / "reads/a_1.fq").string(), (dir / "reads/a_2.fq").string()});
  CHECK(samples[0].origin == "sample sheet '" + sheet.string() + "' line 3");
  CHECK(samples[1].reads == std::vector<std::string>{(dir / "reads/b.fq").string()});
  CHECK(samples[1].origin == "sample sheet '" + sheet.string() + "' line 6");
  CHECK(samples[2].reads == std::vector<std::string>{(dir / "reads/c_1.fq").string()});

  // From the file itself, the same.
  std::ofstream(sheet, std::ios::binary) << text;
  const auto read = cli::read_sample_sheet(sheet);
  REQUIRE(read.size() == 3);
  CHECK(read[0].reads == samples[0].reads);
}

TEST_CASE("bad sample sheet lines are named with their problem", "[sample_sheet]") {
  test::ScratchDir dir("sheet_errors");
  touch(dir / "r1.fq");
  touch(dir / "r2.fq");
  const fs::path sheet = dir / "s.tsv";
  const std::string where = "sample sheet '" + sheet.string() + "' line ";
  struct Case {
    std::string text, expected;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"A\tr1.fq\n\nB\n", where + "3: no reads file column"},
           {"A r1.fq r2.fq\n", "separated by tabs, not spaces"},
           {"A\tr1.fq\tr2.fq\textra\n", where + "1: 4 columns"},
           {"A\t\tr2.fq\n", where + "1: the R1 column is empty"},
           {"A\tmissing.fq\n", where + "1: R1 file '" + (dir / "missing.fq").string() +
                                   "' does not exist"},
           {"A\tr1.fq\tno_r2.fq\n", "R2 file"},
           {"a/b\tr1.fq\n", where + "1: sample name 'a/b' is not a safe file name"},
           {".x\tr1.fq\n", "starts with '.' or '-'"},
           {"# nothing\n\n", "names no sample"},
           {"", "names no sample"},
       }) {
    INFO(c.text);
    const std::string error = sheet_error(c.text, sheet);
    INFO(error);
    CHECK(contains(error, c.expected));
  }
}

TEST_CASE("--sample NAME R1 [R2]", "[sample_sheet]") {
  test::ScratchDir dir("sample_option");
  touch(dir / "r1.fq");
  const auto s = cli::sample_from_option({"x", dir.file("r1.fq")});
  CHECK(s.name == "x");
  CHECK(s.reads == std::vector<std::string>{dir.file("r1.fq")});
  CHECK(s.origin == "--sample x");
  CHECK_THROWS_AS(cli::sample_from_option({"x", dir.file("none.fq")}), std::invalid_argument);
  CHECK_THROWS_AS(cli::sample_from_option({"x y", dir.file("r1.fq")}), std::invalid_argument);
}
