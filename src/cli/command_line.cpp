#include "cli/command_line.hpp"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>
#include <stdexcept>

#include "cli/commands.hpp"
#include "io/parse/sequence_reader.hpp"

namespace metawarp::cli {
namespace {

// The commands Kraken 2's programs are: a link of that name runs them.
constexpr const char* kraken2_programs[] = {"kraken2", "kraken2-build"};

// The command line as the commands read it: `kraken2 ARGS` (metawarp called
// through a link named kraken2) is `metawarp kraken2 ARGS`.
std::vector<std::string> as_called(std::vector<std::string> arguments) {
  const std::string program = std::filesystem::path(arguments[0]).filename().string();
  for (const char* name : kraken2_programs)
    if (program == name) arguments.insert(arguments.begin() + 1, program);
  return arguments;
}

// How the command given fails: Kraken 2's programs as Kraken 2 does.
FailureStatuses failure_statuses(const std::vector<std::string>& arguments) {
  for (const char* name : kraken2_programs)
    if (arguments.size() > 1 && arguments[1] == name) return kraken2_failures;
  return metawarp_failures;
}

// Whether stdout is a pipe whose reader has gone (`query ... | head`).
bool stdout_broken() {
  pollfd out{STDOUT_FILENO, POLLOUT, 0};
  return ::poll(&out, 1, 0) == 1 && (out.revents & POLLERR);
}

// What failed, by the error's type: the commands refuse what they cannot do
// of their command lines with std::invalid_argument, before any work; bad
// reads and references are io::InputError.
int failure_status(const std::exception& e, const FailureStatuses& fails) {
  if (dynamic_cast<const io::InputError*>(&e)) return fails.input;
  if (dynamic_cast<const std::invalid_argument*>(&e)) return fails.command_line;
  return fails.other;
}

// One line whatever the message holds, so the error is always one line;
// returns `status`.
int report_error(const std::string& message, int status) {
  std::string line = message;
  for (char& c : line)
    if (c == '\n') c = ' ';
  std::fprintf(stderr, "metawarp: error: %s\n", line.c_str());
  return status;
}

// A command-line mistake: the error, and where the options are described.
int report_usage_error(const CLI::App& app, const std::string& message, int status) {
  report_error(message, status);
  const auto chosen = app.get_subcommands();
  const std::string help =
      chosen.empty() ? "metawarp --help" : "metawarp " + chosen.front()->get_name() + " --help";
  std::fprintf(stderr, "metawarp: see '%s' for the options\n", help.c_str());
  return status;
}

}  // namespace

void add_commands(CLI::App& app, const CommandContext& context) {
  if (!context.request) {
    add_build_command(app);
    add_info_command(app);
    add_profile_db_command(app);
    add_serve_command(app);
    add_kraken2_command(app);
    add_kraken2_build_command(app);
  }
  add_query_command(app, context);
}

int run_command_line(const CommandContext& context) {
  // Not even the program's name (a process started with argc 0): CLI11
  // would read argv[0].
  if (context.arguments.empty()) return report_error("an empty command line", 1);
  // A server's request is `query`, whatever name its client has.
  std::vector<std::string> arguments =
      context.request ? context.arguments : as_called(context.arguments);
  const FailureStatuses fails = failure_statuses(arguments);
  CLI::App app{"metawarp: build metagenomic reference databases and classify reads"};
  // Checked after parsing, not with require_subcommand, so that an unknown
  // option is reported as such rather than as a missing command.
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", program_version);
  add_commands(app, context);
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  try {
    app.parse(int(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive as "errors" with exit code 0.
    if (e.get_exit_code() == int(CLI::ExitCodes::Success)) return app.exit(e);
    return report_usage_error(app, e.what(), fails.command_line);
  } catch (const ExitStatus& e) {
    return e.status;
  } catch (const std::bad_alloc&) {
    // The last resort: the stages that know what they hold name themselves
    // (pipeline/out_of_memory.hpp).
    return report_error(
        "out of memory (the system refused an allocation): lower what the command holds: "
        "fewer --threads or a smaller --batch-size; a query can read its database in parts "
        "(--max-memory, --partitions), a build can build in partitions (--partitions, "
        "--partition-size)",
        fails.other);
  } catch (const std::exception& e) {
    // A process of its own would have been ended by SIGPIPE, silently: a
    // server's query says so with that status instead, and its client ends so.
    if (context.request && stdout_broken()) return killed_by(SIGPIPE);
    return report_error(e.what(), failure_status(e, fails));
  } catch (...) {
    return report_error("unexpected error", fails.other);
  }
  if (app.get_subcommands().empty())
    return report_usage_error(app,
                              context.request ? "a server runs only `query`"
                                              : "a command is required: build, info, query, "
                                                "serve, kraken2 or kraken2-build",
                              fails.command_line);
  return 0;
}

}  // namespace metawarp::cli
