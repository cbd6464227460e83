// metawarp: GPU metagenomic classifier. Subcommands register themselves; any
// error becomes one "metawarp: error: ..." line on stderr and exit status 1.
#include <cstdio>
#include <exception>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"metawarp: build metagenomic reference databases and classify reads"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "metawarp 0.1.0");
  metawarp::cli::add_build_command(app);
  metawarp::cli::add_info_command(app);
  metawarp::cli::add_query_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "metawarp: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
