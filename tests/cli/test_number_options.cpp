// Every numeric option of every command (issue 25, case 9), found by walking
// the parser the commands register (cli/commands.hpp: add_commands), so that
// an option added later is checked as well: a negative value, 2^64, garbage
// and the values just outside its range are refused with one message naming
// the option, the value and the range; the ends of the range are accepted.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/number_options.hpp"

using namespace metawarp::cli;

namespace {

// A file that exists, for the positional arguments CLI11 checks.
const std::string existing_file = METAWARP_TEST_DATA_DIR "/reads_R1.fq";

// What each command needs besides the option under test.
const std::map<std::string, std::vector<std::string>> base_arguments{
    {"build", {"build", "new.mwdb", "refs.fa"}},
    {"info", {"info", existing_file}},
    {"query", {"query", existing_file, "-"}},
    {"serve", {"serve", existing_file, "--socket", "s"}},
    {"kraken2", {"kraken2", existing_file}},
    {"kraken2-build", {"kraken2-build", "--build", "--db", "db"}},
    {"profile-db", {"profile-db", existing_file, "--read-length", "150"}},
};

// Thrown where the commands would run: the line parsed and passed every check.
struct Accepted {};

// The message the command line is refused with, "" when it is accepted.
// Nothing runs: the parser stops once everything is parsed and checked.
std::string refusal(const std::vector<std::string>& arguments) {
  CLI::App app;
  add_commands(app, CommandContext{});
  app.parse_complete_callback([] { throw Accepted{}; });
  std::vector<std::string> args = arguments;
  std::vector<char*> argv{const_cast<char*>("metawarp")};
  for (std::string& a : args) argv.push_back(a.data());
  try {
    app.parse(int(argv.size()), argv.data());
  } catch (const Accepted&) {
    return "";
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "(parsed, but the check for acceptance did not run)";
}

struct NumericOption {
  std::string command;
  std::string name;  // the first long name, as messages give it
  std::string type;  // the type name shown in --help
};

// Every option whose value is a number: those of cli/number_options.hpp and
// any that CLI11 would convert itself (its type names for integer and
// floating-point variables).
std::vector<NumericOption> numeric_options() {
  const std::set<std::string> numeric{whole_type, size_type, fraction_type, "INT", "UINT", "FLOAT"};
  CLI::App app;
  add_commands(app, CommandContext{});
  std::vector<NumericOption> found;
  for (const CLI::App* command : app.get_subcommands([](CLI::App*) { return true; }))
    for (const CLI::Option* option : command->get_options()) {
      const std::string type = option->get_type_name();
      if (numeric.count(type.substr(0, type.find(':'))))
        found.push_back({command->get_name(), option->get_name(), type});
    }
  return found;
}

std::vector<std::string> with(const NumericOption& o, const std::string& value) {
  std::vector<std::string> args = base_arguments.at(o.command);
  // A required option is in the base line already: its value is replaced.
  const auto given = std::find(args.begin(), args.end(), o.name);
  if (given != args.end() && given + 1 != args.end()) {
    *(given + 1) = value;
    return args;
  }
  args.push_back(o.name);
  args.push_back(value);
  return args;
}

}  // namespace

TEST_CASE("every command has a base command line here") {
  CLI::App app;
  add_commands(app, CommandContext{});
  for (const CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
    INFO(command->get_name());
    CHECK(base_arguments.count(command->get_name()));
    CHECK(refusal(base_arguments.at(command->get_name())).empty());
  }
}

TEST_CASE("the parser has the numeric options the tester tried") {
  std::set<std::string> names;
  for (const NumericOption& o : numeric_options()) names.insert(o.command + " " + o.name);
  for (const char* expected :
       {"build --batch-size", "build --partitions", "build --partition-size", "build --threads",
        "build --kmer-length", "build --window-length", "build --sketch-size",
        "query --batch-size", "query --partitions", "query --max-memory", "query --hit-memory",
        "query --insert-size", "query --confidence", "query --threads", "info --gpu-memory",
        "info --shards-per-gpu", "serve --gpu-lanes", "query --minimum-hit-groups",
        "query --minimum-base-quality", "kraken2 --threads", "kraken2 --confidence",
        "kraken2 --minimum-hit-groups", "kraken2 --minimum-base-quality", "kraken2-build --threads",
        "kraken2-build --load-factor"})
    CHECK(names.count(expected));
}

TEST_CASE("every numeric option refuses what is not a number in its range, naming it") {
  const std::regex range_in_message(" between ([0-9.]+) and ([0-9.]+)");
  for (const NumericOption& o : numeric_options()) {
    INFO(o.command << " " << o.name << " (" << o.type << ")");
    const auto refused = [&](const std::string& value) {
      const std::string message = refusal(with(o, value));
      INFO("value '" << value << "': " << message);
      // The value as given, quoted when it is empty or holds a blank.
      const bool quoted = value.empty() || value.find(' ') != std::string::npos;
      const std::string shown = quoted ? "'" + value + "'" : value;
      CHECK(message.rfind(o.name + " " + shown + ": must be ", 0) == 0);
      return message;
    };
    const std::string negative = refused("-1");
    for (const char* value : {"18446744073709551616", "99999999999999999999999", "abc", "", "1x",
                              "+1", " 1", "0x10", "nan"})
      refused(value);

    // The range the message names: its ends are accepted, the numbers next to them refused.
    std::smatch range;
    if (!std::regex_search(negative, range, range_in_message)) {
      FAIL_CHECK("no range in the message for -1: '" << negative << "'");
      continue;
    }
    const std::string min = range[1], max = range[2];
    CHECK(refusal(with(o, min)).empty());
    CHECK(refusal(with(o, max)).empty());
    if (o.type.rfind(fraction_type, 0) == 0) {
      refused(max + "1");  // 1 -> 11
      continue;
    }
    const std::uint64_t low = std::stoull(min), high = std::stoull(max);
    if (low > 0) refused(std::to_string(low - 1));
    if (high < ~std::uint64_t(0)) refused(std::to_string(high + 1));
  }
}

TEST_CASE("sizes take k, m, g and t, and refuse what overflows") {
  const std::string option = "--max-memory";
  CHECK(parse_whole_number(option, "8G", 0, ~std::uint64_t(0), true) == std::uint64_t(8) << 30);
  CHECK(parse_whole_number(option, "3k", 0, ~std::uint64_t(0), true) == 3072);
  CHECK(parse_whole_number(option, "2MiB", 0, ~std::uint64_t(0), true) == std::uint64_t(2) << 20);
  CHECK(parse_whole_number(option, "1tb", 0, ~std::uint64_t(0), true) == std::uint64_t(1) << 40);
  CHECK(parse_whole_number(option, "512b", 0, ~std::uint64_t(0), true) == 512);
  CHECK(parse_whole_number(option, "16777215t", 0, ~std::uint64_t(0), true) ==
        std::uint64_t(16777215) << 40);
  CHECK_THROWS_WITH(parse_whole_number(option, "16777216t", 0, ~std::uint64_t(0), true),
                    "--max-memory 16777216t: must be a size in bytes between 0 and "
                    "18446744073709551615 (suffixes k, m, g, t: 2^10, 2^20, 2^30, 2^40)");
  CHECK_THROWS_AS(parse_whole_number(option, "1kk", 0, ~std::uint64_t(0), true),
                  CLI::ValidationError);
  CHECK_THROWS_AS(parse_whole_number(option, "8G", 0, ~std::uint64_t(0), false),
                  CLI::ValidationError);
  CHECK(parse_whole_number(option, "007", 0, 10) == 7);
}
