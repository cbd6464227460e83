#include "output/signals.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "output/remove_on_failure.hpp"

namespace metawarp::output {
namespace {

constexpr int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

// Async-signal-safe only: unlink, sigaction, pthread_sigmask, raise.
extern "C" void remove_outputs_and_die(int sig) {
  remove_registered_paths();
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(sig, &default_action, nullptr);
  // Unblocked, the raised signal ends the process at once rather than when
  // the handler returns, so no other thread gets to create a file after the
  // registry was emptied.
  sigset_t just_this;
  sigemptyset(&just_this);
  sigaddset(&just_this, sig);
  pthread_sigmask(SIG_UNBLOCK, &just_this, nullptr);
  raise(sig);
}

// A fault on a file mapped into memory (AtomicFile::reserve(): an I/O
// error of the disk under a database being written). Said in one line, the
// outputs removed, then the fault's default action (a core, exit status of
// SIGBUS), as for any other bus error. Async-signal-safe: write(), then
// remove_outputs_and_die().
extern "C" void report_bus_error(int sig) {
  static const char message[] =
      "metawarp: error: bus error (SIGBUS), most likely a file written through memory that "
      "could not be written (an I/O error of its disk, or a file system out of room); the "
      "outputs' temporaries are removed\n";
  ssize_t ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
  (void)ignored;
  remove_outputs_and_die(sig);
}

}  // namespace

void install_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = remove_outputs_and_die;
  sigemptyset(&action.sa_mask);
  for (int sig : cleanup_signals) sigaddset(&action.sa_mask, sig);  // one cleanup at a time
  for (int sig : cleanup_signals) {
    struct sigaction previous {};
    sigaction(sig, nullptr, &previous);
    if (previous.sa_handler == SIG_IGN) continue;
    sigaction(sig, &action, nullptr);
  }
  struct sigaction bus = action;  // the same mask: one cleanup at a time
  bus.sa_handler = report_bus_error;
  sigaction(SIGBUS, &bus, nullptr);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGXFSZ, &ignore, nullptr);
}

}  // namespace metawarp::output
