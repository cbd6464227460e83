#pragma once
// Each subcommand registers itself on the CLI11 app; its callback runs it.
// Errors are thrown (std::exception) and turned into a message and exit code by main.
#include <CLI/CLI.hpp>

namespace metawarp::cli {

void add_build_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_query_command(CLI::App& app);  // also registers the alias `classify`

}  // namespace metawarp::cli
