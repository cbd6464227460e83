// metawarp: GPU metagenomic classifier. Subcommands register themselves.
// Exit status: 0 on success (--help and --version included, printed on
// stdout); 1 with one "metawarp: error: ..." line on stderr for any error,
// a command-line mistake or a failed command alike; killed by the signal for
// SIGINT, SIGTERM, SIGHUP and SIGPIPE, after the outputs were cleaned up.
#include <cstdio>
#include <exception>
#include <string>

#include "cli/commands.hpp"
#include "output/signals.hpp"

namespace {

constexpr int failure = 1;

// One line whatever the message holds, so the error is always one line.
int report_error(const std::string& message) {
  std::string line = message;
  for (char& c : line)
    if (c == '\n') c = ' ';
  std::fprintf(stderr, "metawarp: error: %s\n", line.c_str());
  return failure;
}

// A command-line mistake: the error, and where the options are described.
int report_usage_error(const CLI::App& app, const std::string& message) {
  report_error(message);
  const auto chosen = app.get_subcommands();
  const std::string help =
      chosen.empty() ? "metawarp --help" : "metawarp " + chosen.front()->get_name() + " --help";
  std::fprintf(stderr, "metawarp: see '%s' for the options\n", help.c_str());
  return failure;
}

}  // namespace

int main(int argc, char** argv) {
  metawarp::output::install_signal_handlers();
  CLI::App app{"metawarp: build metagenomic reference databases and classify reads"};
  // Checked after parsing, not with require_subcommand, so that an unknown
  // option is reported as such rather than as a missing command.
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", "metawarp 0.1.0");
  metawarp::cli::add_build_command(app);
  metawarp::cli::add_info_command(app);
  metawarp::cli::add_query_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive as "errors" with exit code 0.
    if (e.get_exit_code() == int(CLI::ExitCodes::Success)) return app.exit(e);
    return report_usage_error(app, e.what());
  } catch (const std::exception& e) {
    return report_error(e.what());
  } catch (...) {
    return report_error("unexpected error");
  }
  if (app.get_subcommands().empty())
    return report_usage_error(app, "a command is required: build, info or query");
  return 0;
}
