#pragma once
// Each subcommand registers itself on the CLI11 app; its callback runs it.
// Errors are thrown (std::exception) and turned into a message and exit code
// by run_command_line (cli/command_line.hpp).
#include <CLI/CLI.hpp>

namespace metawarp::cli {

struct CommandContext;

void add_build_command(CLI::App& app);
void add_info_command(CLI::App& app);
// `profile-db` (cli/profile_db_command.cpp).
void add_profile_db_command(CLI::App& app);
// Also registers the alias `classify`. The context says where its database
// comes from (a server's) and holds the command line for --server.
void add_query_command(CLI::App& app, const CommandContext& context);
void add_serve_command(CLI::App& app);
// Kraken 2's command lines: `kraken2` (cli/kraken2_command.cpp) and
// `kraken2-build` (cli/kraken2_build_command.cpp).
void add_kraken2_command(CLI::App& app);
void add_kraken2_build_command(CLI::App& app);
// The commands `context` allows (a server's request: `query` alone), as
// run_command_line parses them; tests walk the same parser.
void add_commands(CLI::App& app, const CommandContext& context);

}  // namespace metawarp::cli
