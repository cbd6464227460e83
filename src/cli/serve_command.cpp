// `metawarp serve DATABASE --socket PATH`: a process that loads the database
// once (for the GPU: uploads it) and runs the queries `metawarp query
// --server PATH ...` sends it, one at a time, each as that command would run
// by itself but without the load and the GPU's start and exit
// (docs/cli-query.md, "A resident server"). Requests are received side by
// side, each within a deadline, and checked before they run
// (docs/reliability.md, "The server's trust model"). It runs until it is
// stopped (SIGINT, SIGTERM, SIGHUP), which removes its socket and the outputs
// of a query in progress.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "cli/command_line.hpp"
#include "cli/number_options.hpp"
#include "cli/commands.hpp"
#include "cli/query_command.hpp"
#include "cli/query_databases.hpp"
#include "cli/query_request.hpp"
#include "cli/unix_socket.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/thread_group.hpp"
#include "output/output_path.hpp"
#include "output/remove_on_failure.hpp"
#include "pipeline/progress.hpp"

namespace metawarp::cli {
namespace {

struct ServeCommand {
  QueryCommand defaults;  // the database and device options; the rest a query's defaults
  std::string socket;
  // How long a client has to send its whole request, from its connection.
  double request_seconds = 10;
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

  // "serve: <line>" on the server's own stderr, from any thread, whatever
  // streams a query is using meanwhile.
  void log(const std::string& line) const {
    const std::string text = "serve: " + line + "\n";
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(err_.get(), text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // nowhere to say it
      done += std::size_t(n);
    }
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

// How many connections are received at once. Each receives its request on a
// thread of its own, so a client that is slow to send delays nobody else
// (at most this many such clients at once hold the others up, each until its
// request's deadline); the requests that have come whole run one at a time.
constexpr int receiving_threads = 16;

class Server {
 public:
  Server(int listening, ResidentDatabases& databases, double request_seconds, bool quiet)
      : listening_(listening),
        databases_(databases),
        request_time_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(request_seconds))),
        quiet_(quiet) {}

  // Serves until the process is stopped; returns only by an error that ends
  // the server (connections can no longer be accepted).
  void run() {
    host::ThreadGroup receivers;
    // The first such error wakes the other receivers from accept(), so
    // that it ends the server instead of leaving it half alive.
    receivers.on_stop([this] { ::shutdown(listening_, SHUT_RDWR); });
    for (int i = 0; i < receiving_threads; ++i)
      receivers.spawn([this] {
        while (true) {
          const output::FileDescriptor connection = accept_connection(listening_);
          serve(connection.get());
        }
      });
    receivers.join();
  }

 private:
  // One client, start to end. Whatever it sends, the server goes on: a
  // request that is not run is answered with the reason (a refusal).
  void serve(int connection) noexcept {
    const Deadline deadline = std::chrono::steady_clock::now() + request_time_;
    Peer client;
    try {
      client = peer_of(connection);
      if (client.uid != ::geteuid())
        throw std::runtime_error("this server serves only its own user (uid " +
                                 std::to_string(::geteuid()) + ")");
      std::optional<Message> message = receive_message(connection, deadline);
      if (!message) return;  // it left without asking
      const QueryRequest request = decode_request(message->bytes, message->fds.size());
      return run_query(connection, client, *message, request);
    } catch (const std::exception& e) {
      refuse(connection, client, e.what());
    }
  }

  void refuse(int connection, const Peer& client, const std::string& why) {
    state_.log("refused the request of pid " + std::to_string(client.pid) + " (uid " +
               std::to_string(client.uid) + "): " + why);
    try {
      send_message(connection, encode(QueryReply{1, why}));
    } catch (const std::exception&) {
      // It is gone: nobody to tell.
    }
  }

  // The query in the client's folder and streams, while no other runs; the
  // exit status to the client. A failure to enter its folder or streams
  // throws (the request is refused).
  void run_query(int connection, const Peer& client, Message& message,
                 const QueryRequest& request) {
    std::atomic<bool> gone{false};
    CommandContext context;
    context.arguments = request.arguments;
    context.databases = &databases_;
    context.request = true;
    context.client = &client;
    context.cancelled = &gone;
    int status;
    {
      const std::lock_guard one_at_a_time(running_);
      const auto start = std::chrono::steady_clock::now();
      {
        HangupWatch watch(connection, gone);
        const InClientState in_client(state_, message.fds, request.umask);
        status = run_command_line(context);
      }
      message.fds.clear();
      if (!quiet_)
        state_.log("query of pid " + std::to_string(client.pid) + ": exit status " +
                   std::to_string(status) + (gone.load() ? " (the client went away)" : "") +
                   ", " + pipeline::format_seconds(host::seconds_since(start)));
    }
    if (gone.load()) return;
    try {
      send_message(connection, encode(QueryReply{status, {}}));
    } catch (const std::exception& e) {
      state_.log("the exit status of pid " + std::to_string(client.pid) +
                 "'s query was not delivered: " + e.what());
    }
  }

  const int listening_;
  ResidentDatabases& databases_;
  const ProcessState state_;
  const std::chrono::steady_clock::duration request_time_;
  const bool quiet_;
  // One query at a time: while it runs, the process's folder and standard
  // streams are its client's.
  std::mutex running_;
};

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
  // A query's descriptors 0 to 2 are its client's streams; any other is the
  // server's own, never a client's output.
  output::limit_output_descriptors_to_standard_streams();
  Server server(listening.get(), databases, cmd.request_seconds, cmd.defaults.quiet);
  if (!cmd.defaults.quiet) std::fprintf(stderr, "serve: listening on %s\n", socket.c_str());
  server.run();
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
  add_partition_options(*sub, cmd->defaults);
  sub->add_flag("-q,--quiet", cmd->defaults.quiet, "No messages on stderr but errors");
  add_fraction(*sub, "--request-seconds", cmd->request_seconds,
               "Seconds a client has, from its connection, to send its whole request", 0.1, 3600);
  sub->callback([cmd, sub] {
    read_device_options(*sub, cmd->defaults);
    run_serve(*cmd);
  });
}

}  // namespace metawarp::cli
