#pragma once
// What `query --server` sends the server and what comes back. The request
// is the client's command line (without --server) and its umask; its working
// folder, stdin, stdout and stderr travel beside it as open descriptors, in
// the order of RequestFd. The reply is the query's exit status, or the
// server's refusal of a request it did not run. Both name the protocol and
// the program's version, so a client and a server of different builds refuse
// each other with a message instead of misreading the other.
#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

namespace metawarp::cli {

// The descriptors of a request, in the order they are attached.
enum RequestFd { request_cwd = 0, request_stdin, request_stdout, request_stderr, request_fds };

struct QueryRequest {
  std::vector<std::string> arguments;  // as main() got them: "metawarp", "query", ...
  mode_t umask = 022;
};

struct QueryReply {
  int exit_status = 0;
  // Why the request was not run (a malformed one, a client not served);
  // empty when the query ran, whatever its status.
  std::string refusal;
};

std::string encode(const QueryRequest& request);
std::string encode(const QueryReply& reply);
// Throw std::runtime_error for a message of another protocol or version, one
// cut short or with bytes after its end, or a bad field. A request also needs
// a command line (at least the program's name) and `descriptors`, the number
// that came with it, equal to request_fds: what decodes is a request the
// server can run. Any bytes at all end in a request or that error
// (tests/fuzz/query_request_fuzz.cpp).
QueryRequest decode_request(std::string_view bytes, std::size_t descriptors);
QueryReply decode_reply(std::string_view bytes);

}  // namespace metawarp::cli
