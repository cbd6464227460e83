#include "cli/query_client.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "cli/command_line.hpp"
#include "cli/query_request.hpp"
#include "cli/unix_socket.hpp"

namespace metawarp::cli {

std::vector<std::string> without_server_option(const std::vector<std::string>& arguments) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i] == "--server") {
      ++i;  // and its value
      continue;
    }
    if (arguments[i].rfind("--server=", 0) == 0) continue;
    kept.push_back(arguments[i]);
  }
  return kept;
}

int run_on_server(const std::string& socket, const std::vector<std::string>& arguments) {
  // The folder the paths of the command line are relative to.
  output::FileDescriptor folder(::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!folder.is_open())
    throw std::runtime_error(std::string("cannot open the working folder: ") +
                             std::strerror(errno));
  QueryRequest request;
  request.arguments = without_server_option(arguments);
  request.umask = ::umask(0);
  ::umask(request.umask);
  output::FileDescriptor connection = connect_to(socket);
  // Whoever listens there gets this process's folder and streams: only a
  // server of this user's own (docs/reliability.md, "The server's trust model").
  const uid_t owner = peer_of(connection.get()).uid;
  if (owner != ::geteuid())
    throw std::runtime_error("the server at '" + socket + "' is run by uid " +
                             std::to_string(owner) + ", not by this user (uid " +
                             std::to_string(::geteuid()) +
                             "): nothing was sent to it; use a server of your own");
  int fds[request_fds];
  fds[request_cwd] = folder.get();
  fds[request_stdin] = STDIN_FILENO;
  fds[request_stdout] = STDOUT_FILENO;
  fds[request_stderr] = STDERR_FILENO;
  send_message(connection.get(), encode(request), fds);
  // The server writes to this process's stdout and stderr itself; what comes
  // back is the status alone.
  const std::optional<Message> reply = receive_message(connection.get());
  if (!reply)
    throw std::runtime_error("the server at '" + socket +
                             "' ended the connection without an answer (it was stopped)");
  const QueryReply answer = decode_reply(reply->bytes);
  if (!answer.refusal.empty())
    throw std::runtime_error("the server at '" + socket + "' refused the request: " +
                             answer.refusal);
  const int status = answer.exit_status;
  // A query that would have been killed by SIGPIPE (its stdout's reader
  // went away) ends this process so too.
  if (status == killed_by(SIGPIPE)) {
    ::signal(SIGPIPE, SIG_DFL);
    ::raise(SIGPIPE);
  }
  return status;
}

}  // namespace metawarp::cli
