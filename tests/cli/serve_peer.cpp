// The other end of a `metawarp serve` socket, as a program other than
// metawarp's own client may be, for tests/cli/cli_serve_requests.sh and
// cli_serve_users.sh:
//
//   serve_peer request SOCKET DESCRIPTORS [ARGUMENT...]
//       sends a request of these arguments (none: an empty command line)
//       with the first DESCRIPTORS of (working folder, stdin, stdout,
//       stderr); prints the reply ("status N", "refusal: WHY") or "no reply"
//   serve_peer garbage SOCKET TEXT
//       sends TEXT as a message, without descriptors; prints the reply
//   serve_peer slow SOCKET MILLISECONDS
//       connects, prints "connected", then sends a request's bytes one at a
//       time, MILLISECONDS apart ("sent N" after each), until the server ends
//       the connection ("dropped after N bytes", status 0); status 1 when it
//       was sent whole ("answered") or 30 s have passed ("never dropped")
//   serve_peer fake-server SOCKET REPORT
//       listens at SOCKET like a server (prints "listening" once it does),
//       takes one connection, answers a request with exit status 0 and
//       writes to REPORT what came: "nothing" or "a request with N
//       descriptors"
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cli/query_request.hpp"
#include "cli/unix_socket.hpp"

using namespace metawarp::cli;
using namespace std::chrono_literals;

namespace {

int print_reply(int connection) {
  const auto reply = receive_message(connection, std::chrono::steady_clock::now() + 60s);
  if (!reply) {
    std::puts("no reply");
    return 0;
  }
  const QueryReply answer = decode_reply(reply->bytes);
  std::printf("status %d\n", answer.exit_status);
  if (!answer.refusal.empty()) std::printf("refusal: %s\n", answer.refusal.c_str());
  return 0;
}

int send_request(const std::string& socket, int descriptors, std::vector<std::string> arguments) {
  const metawarp::output::FileDescriptor folder(::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  const int all[request_fds] = {folder.get(), STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO};
  const auto connection = connect_to(socket);
  try {
    send_message(connection.get(), encode(QueryRequest{std::move(arguments), 022}),
                 std::span<const int>(all, std::size_t(descriptors)));
  } catch (const std::runtime_error& e) {
    // A server that refuses before reading (another user) may have closed
    // the connection already; its answer is there to read all the same.
    std::printf("sending failed: %s\n", e.what());
  }
  return print_reply(connection.get());
}

int send_garbage(const std::string& socket, const std::string& text) {
  const auto connection = connect_to(socket);
  send_message(connection.get(), text);
  return print_reply(connection.get());
}

// Whether the server has ended the connection (or answered, which it may
// only do to refuse).
bool ended(int connection) {
  pollfd watched{connection, POLLIN | POLLRDHUP, 0};
  return ::poll(&watched, 1, 0) == 1;
}

int send_slowly(const std::string& socket, int milliseconds) {
  const auto connection = connect_to(socket);
  std::puts("connected");
  std::fflush(stdout);
  const std::string body = encode(QueryRequest{{"metawarp", "query", "--help"}, 022});
  const std::uint32_t length = std::uint32_t(body.size());
  std::string bytes(sizeof(length), '\0');
  std::memcpy(bytes.data(), &length, sizeof(length));
  bytes += body;
  const auto give_up = std::chrono::steady_clock::now() + 30s;
  for (std::size_t sent = 0; std::chrono::steady_clock::now() < give_up; ++sent) {
    const bool whole = sent >= bytes.size();
    if (ended(connection.get()) ||
        (!whole && ::send(connection.get(), &bytes[sent], 1, MSG_NOSIGNAL) != 1)) {
      if (whole) {
        std::puts("answered");
        return 1;
      }
      std::printf("dropped after %zu bytes\n", sent);
      return 0;
    }
    if (!whole) {
      std::printf("sent %zu\n", sent + 1);
      std::fflush(stdout);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds));
  }
  std::puts("never dropped");
  return 1;
}

int fake_server(const std::string& socket, const std::string& report) {
  const auto listening = listen_at(socket);
  std::puts("listening");
  std::fflush(stdout);
  const auto connection = accept_connection(listening.get());
  std::string what = "nothing";
  try {
    const auto message = receive_message(connection.get(), std::chrono::steady_clock::now() + 20s);
    if (message) {
      what = "a request with " + std::to_string(message->fds.size()) + " descriptors";
      send_message(connection.get(), encode(QueryReply{0, {}}));
    }
  } catch (const std::runtime_error& e) {
    what = std::string("a broken request: ") + e.what();
  }
  std::ofstream(report) << what << "\n";
  ::unlink(socket.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() >= 2 && args[0] == "request")
      return send_request(args[1], std::stoi(args.at(2)), {args.begin() + 3, args.end()});
    if (args.size() == 3 && args[0] == "garbage") return send_garbage(args[1], args[2]);
    if (args.size() == 3 && args[0] == "slow") return send_slowly(args[1], std::stoi(args[2]));
    if (args.size() == 3 && args[0] == "fake-server") return fake_server(args[1], args[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "serve_peer: %s\n", e.what());
    return 2;
  }
  std::fprintf(stderr, "usage: see tests/cli/serve_peer.cpp\n");
  return 2;
}
