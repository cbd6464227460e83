#pragma once
// The command line run as main() runs it: parsed, the chosen command run,
// errors turned into one "metawarp: error: ..." line and exit status 1.
// main() runs it once; `metawarp serve` runs it for each query a client
// sends, with the database it holds.
#include <atomic>
#include <string>
#include <vector>

namespace metawarp::cli {

class QueryDatabases;
struct Peer;

// project(VERSION) of CMakeLists.txt, so that the binary, its package and
// CITATION.cff say the same (tools/check_package.sh compares them).
inline constexpr const char* program_version_number = METAWARP_VERSION;
inline constexpr const char* program_version = "metawarp " METAWARP_VERSION;

struct CommandContext {
  // The command line as given, for `query --server` to pass on.
  std::vector<std::string> arguments;
  // Where `query` gets its database; null: it loads its own.
  QueryDatabases* databases = nullptr;
  // A server's request: only `query` (and `classify`) are commands.
  bool request = false;
  // With a request: who sent it, for what it may read (cli/peer_access.hpp).
  const Peer* client = nullptr;
  // Set by a server when the request's client went away (QueryOptions::cancelled).
  const std::atomic<bool>* cancelled = nullptr;
};

// The exit status: 0 on success (--help and --version included), 1 on any
// error, or what a query run by a server ended with (ExitStatus). Kraken 2's
// command lines (`kraken2`, `kraken2-build`) fail as Kraken 2 does
// (FailureStatuses). A program called through a link named kraken2 or
// kraken2-build runs that command (`ln -s metawarp kraken2`).
int run_command_line(const CommandContext& context);

// The statuses a failed command exits with, by what failed: the command
// line (an option, a missing or contradictory argument), the input data (a
// reads or reference file that is unreadable or malformed), or anything else
// (a database that cannot be loaded, an output that cannot be written,
// memory).
struct FailureStatuses {
  int command_line = 1;
  int input = 1;
  int other = 1;
};
// metawarp's: 1 for every failure.
inline constexpr FailureStatuses metawarp_failures{1, 1, 1};
// Kraken 2's (its sysexits.h codes): EX_USAGE 64 for its usage message,
// EX_DATAERR 65 for malformed input, EX_OSERR 71 for a database it cannot
// open or memory it cannot allocate.
inline constexpr FailureStatuses kraken2_failures{64, 65, 71};

// The exit status of a process killed by `signal`, as a shell reports it.
constexpr int killed_by(int signal) { return 128 + signal; }

// Thrown by a command that has already said what it had to (a query run by a
// server, which printed its own messages) to end with this status.
struct ExitStatus {
  int status;
};

}  // namespace metawarp::cli
