// metawarp: GPU metagenomic classifier. Subcommands register themselves.
// Exit status: 0 on success (--help and --version included, printed on
// stdout); 1 with one "metawarp: error: ..." line on stderr for any error,
// a command-line mistake or a failed command alike; killed by the signal for
// SIGINT, SIGTERM, SIGHUP and SIGPIPE, after the outputs were cleaned up.
#include "cli/command_line.hpp"
#include "metawarp/host/freed_memory.hpp"
#include "output/signals.hpp"

int main(int argc, char** argv) {
  metawarp::host::keep_freed_memory();
  metawarp::output::install_signal_handlers();
  metawarp::cli::CommandContext context;
  context.arguments.assign(argv, argv + argc);
  return metawarp::cli::run_command_line(context);
}
