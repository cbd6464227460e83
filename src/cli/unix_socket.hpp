#pragma once
// Unix domain sockets for `metawarp serve` and `query --server`: a socket
// listening at a path, a connection to it, and length-prefixed messages that
// may carry open file descriptors (SCM_RIGHTS), so that the server can work
// in its client's folder and write to the client's own stdout and stderr.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "output/file_descriptor.hpp"

namespace metawarp::cli {

// A socket listening at `path`, which only its owner may connect to (mode
// 0600). Refuses, naming the path, a path that exists and is not a socket and
// a socket a server still answers on; a socket nobody answers on (left by a
// server that was killed) is replaced.
output::FileDescriptor listen_at(const std::string& path);

// The next connection (blocks; retried on EINTR).
output::FileDescriptor accept_connection(int listening);

// A connection to the server at `path`; throws std::runtime_error naming
// the path when there is no socket there or nobody answers.
output::FileDescriptor connect_to(const std::string& path);

// The process at the other end of a connection and its credentials as the
// kernel recorded them when it connected (a server's: when it listened):
// effective uid and gid, and supplementary groups.
struct Peer {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
};
Peer peer_of(int connection);

// Messages of at most this many bytes are accepted.
inline constexpr std::size_t max_message_bytes = std::size_t{1} << 20;
// And at most this many descriptors with one message.
inline constexpr std::size_t max_message_fds = 8;

// Sends `bytes` (at most max_message_bytes) with `fds` attached. Throws
// std::runtime_error when the connection fails.
void send_message(int connection, std::string_view bytes, std::span<const int> fds = {});

struct Message {
  std::string bytes;
  std::vector<output::FileDescriptor> fds;  // received open, close-on-exec
};

using Deadline = std::chrono::steady_clock::time_point;
inline constexpr Deadline no_deadline = Deadline::max();

// The next message; nullopt when the other end closed the connection before
// sending one. Throws std::runtime_error for a broken or oversized message,
// and for one not whole by `deadline` (however slowly its bytes come).
std::optional<Message> receive_message(int connection, Deadline deadline = no_deadline);

}  // namespace metawarp::cli
