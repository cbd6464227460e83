#pragma once
// `metawarp query --server SOCKET ...`: the query is run by the `metawarp
// serve` listening at SOCKET, which holds the database loaded (and uploaded
// to its GPUs) from query to query, so a query pays neither the load nor the
// GPU's start and exit. The server runs the same command line in this
// process's folder, reading and writing this process's stdin, stdout and
// stderr (passed to it over the socket), with its umask: outputs, messages,
// progress and the exit status are as if the query ran here. Ending this
// process (Ctrl-C) cancels the query on the server, which removes its outputs.
#include <string>
#include <vector>

namespace metawarp::cli {

// Sends `arguments` (main's, --server and its value left out) to the server
// and waits for the query's exit status. Throws std::runtime_error when
// there is no server, when it is run by another user (then nothing was sent
// to it), when it refused the request, or when it ends before the query does.
int run_on_server(const std::string& socket, const std::vector<std::string>& arguments);

// The command line without its --server option ("--server X" or "--server=X").
std::vector<std::string> without_server_option(const std::vector<std::string>& arguments);

}  // namespace metawarp::cli
