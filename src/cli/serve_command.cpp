// `metawarp serve DATABASE --socket PATH`: a process that loads the database
// once (for the GPU: uploads it) and runs the queries `metawarp query
// --server PATH ...` sends it, one at a time, each as that command would run
// by itself but without the load and the GPU's start and exit
// (docs/cli-query.md, "A resident server"). It runs until it is stopped
// (SIGINT, SIGTERM, SIGHUP), which removes its socket and the outputs of a
// query in progress.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/query_command.hpp"
#include "cli/query_databases.hpp"
#include "cli/query_request.hpp"
#include "cli/unix_socket.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/thread_group.hpp"
#include "output/remove_on_failure.hpp"
#include "pipeline/progress.hpp"

namespace metawarp::cli {
namespace {

struct ServeCommand {
  QueryCommand defaults;  // the database and device options; the rest a query's defaults
  std::string socket;
};

output::FileDescriptor duplicate(int fd) {
  output::FileDescriptor copy(::fcntl(fd, F_DUPFD_CLOEXEC, 3));
  if (!copy.is_open())
    throw std::runtime_error(std::string("cannot duplicate a descriptor: ") +
                             std::strerror(errno));
  return copy;
}

void redirect(int from, int to) {
  while (::dup2(from, to) < 0)
    if (errno != EINTR)
      throw std::runtime_error(std::string("cannot redirect a descriptor: ") +
                               std::strerror(errno));
}

// The server's own folder, stdin, stdout, stderr and umask, put back after
// each query has used its client's.
class ProcessState {
 public:
  ProcessState()
      : folder_(::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)),
        in_(duplicate(STDIN_FILENO)),
        out_(duplicate(STDOUT_FILENO)),
        err_(duplicate(STDERR_FILENO)) {
    if (!folder_.is_open())
      throw std::runtime_error(std::string("cannot open the working folder: ") +
                               std::strerror(errno));
    umask_ = ::umask(0);
    ::umask(umask_);
  }

  // The client's, for one query.
  void enter(const std::vector<output::FileDescriptor>& fds, mode_t umask) const {
    std::fflush(stdout);
    redirect(fds[request_stdin].get(), STDIN_FILENO);
    redirect(fds[request_stdout].get(), STDOUT_FILENO);
    redirect(fds[request_stderr].get(), STDERR_FILENO);
    if (::fchdir(fds[request_cwd].get()) != 0)
      throw std::runtime_error(std::string("cannot enter the client's folder: ") +
                               std::strerror(errno));
    ::umask(umask);
  }

  // Back to the server's; the client's descriptors are released here, so
  // that its stdout ends when the query does, not when the next one starts.
  // Never throws: it runs when a query failed too, and the server must not
  // go on in a client's folder or streams, so a failure here ends it.
  void leave() const noexcept {
    std::fflush(stdout);
    std::clearerr(stdout);
    std::clearerr(stdin);
    const bool back = ::dup2(in_.get(), STDIN_FILENO) >= 0 &&
                      ::dup2(out_.get(), STDOUT_FILENO) >= 0 &&
                      ::dup2(err_.get(), STDERR_FILENO) >= 0 && ::fchdir(folder_.get()) == 0;
    if (!back) {
      std::fprintf(stderr, "serve: cannot return to the server's own folder and streams: %s\n",
                   std::strerror(errno));
      std::abort();
    }
    ::umask(umask_);
  }

 private:
  output::FileDescriptor folder_, in_, out_, err_;
  mode_t umask_ = 022;
};

// Sets `gone` when the client's end of the connection closes (it was
// interrupted or killed), so the query stops at its next batch.
class HangupWatch {
 public:
  HangupWatch(int connection, std::atomic<bool>& gone) {
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("cannot make a pipe: ") + std::strerror(errno));
    wake_read_ = output::FileDescriptor(ends[0]);
    wake_write_ = output::FileDescriptor(ends[1]);
    thread_.spawn([this, connection, &gone] {
      pollfd watched[2] = {{connection, POLLIN | POLLRDHUP, 0}, {wake_read_.get(), POLLIN, 0}};
      while (::poll(watched, 2, -1) < 0 && errno == EINTR) {
      }
      // The client sends nothing after its request: anything readable is its end.
      if (watched[0].revents != 0) gone.store(true);
    });
  }
  ~HangupWatch() {
    const char done = 1;
    while (::write(wake_write_.get(), &done, 1) < 0 && errno == EINTR) {
    }
    thread_.join();
  }

 private:
  output::FileDescriptor wake_read_, wake_write_;
  host::ThreadGroup thread_;
};

// The client's folder, streams and umask while it lives, the server's after.
class InClientState {
 public:
  InClientState(const ProcessState& state, const std::vector<output::FileDescriptor>& fds,
                mode_t umask)
      : state_(state) {
    try {
      state_.enter(fds, umask);
    } catch (...) {
      state_.leave();  // whatever enter() had redirected
      throw;
    }
  }
  ~InClientState() { state_.leave(); }
  InClientState(const InClientState&) = delete;
  InClientState& operator=(const InClientState&) = delete;

 private:
  const ProcessState& state_;
};

// One client's query, start to end. A failure of the exchange itself ends
// this client's connection, not the server.
void serve_one(int connection, ResidentDatabases& databases, const ProcessState& state,
               bool quiet) {
  const Peer client = peer_of(connection);
  if (client.uid != ::getuid()) {
    std::fprintf(stderr, "serve: refused a client of another user (pid %d)\n", int(client.pid));
    return;
  }
  // A client that connects and sends nothing must not hold the server.
  const timeval request_wait{10, 0};
  ::setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &request_wait, sizeof(request_wait));
  std::optional<Message> message = receive_message(connection);
  if (!message) return;
  if (message->fds.size() != request_fds)
    throw std::runtime_error("a request came without its folder and standard streams");
  const QueryRequest request = decode_request(message->bytes);
  std::atomic<bool> gone{false};
  CommandContext context;
  context.arguments = request.arguments;
  context.databases = &databases;
  context.request = true;
  context.cancelled = &gone;
  const auto start = std::chrono::steady_clock::now();
  int status;
  {
    HangupWatch watch(connection, gone);
    const InClientState in_client(state, message->fds, request.umask);
    status = run_command_line(context);
  }
  message->fds.clear();
  if (!quiet)
    std::fprintf(stderr, "serve: query of pid %d: exit status %d%s, %s\n", int(client.pid), status,
                 gone.load() ? " (the client went away)" : "",
                 pipeline::format_seconds(host::seconds_since(start)).c_str());
  if (!gone.load()) send_message(connection, encode(QueryReply{status}));
}

void run_serve(ServeCommand& cmd) {
  const std::string socket = std::filesystem::absolute(cmd.socket).string();
  // A client's stdout may be a pipe its reader closed: that query's write
  // fails (and the query with it), the server goes on.
  ::signal(SIGPIPE, SIG_IGN);
  const output::FileDescriptor listening = listen_at(socket);
  // Removed however the server ends (the signal handlers unlink it too).
  output::RemoveOnFailure remove_socket(socket);
  ResidentDatabases databases;
  {
    QueryCommand& d = cmd.defaults;
    // Before the loading line starts: its notices (no GPU, threads) are lines of their own.
    const DatabaseLoad load = default_query_load(d, "serve");
    pipeline::ProgressStep loading(d.quiet, "serve: loading database " + d.database);
    databases.get(load);
    loading.done(pipeline::format_bytes(std::filesystem::file_size(d.database)) + ", " +
                 pipeline::format_seconds(loading.seconds()));
  }
  const ProcessState state;
  if (!cmd.defaults.quiet) std::fprintf(stderr, "serve: listening on %s\n", socket.c_str());
  while (true) {
    output::FileDescriptor connection = accept_connection(listening.get());
    try {
      serve_one(connection.get(), databases, state, cmd.defaults.quiet);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "serve: a client's request failed: %s\n", e.what());
    }
  }
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto cmd = std::make_shared<ServeCommand>();
  CLI::App* sub = app.add_subcommand(
      "serve", "Hold a database loaded for `metawarp query --server SOCKET` (until stopped)");
  sub->add_option("database", cmd->defaults.database, "Database file written by `metawarp build`")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--socket", cmd->socket, "Where to listen: a path for a Unix socket")
      ->required();
  add_device_options(*sub, cmd->defaults);
  sub->add_flag("-q,--quiet", cmd->defaults.quiet, "No messages on stderr but errors");
  sub->callback([cmd, sub] {
    read_device_options(*sub, cmd->defaults);
    run_serve(*cmd);
  });
}

}  // namespace metawarp::cli
