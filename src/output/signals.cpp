#include "output/signals.hpp"

#include <pthread.h>
#include <signal.h>

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
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGXFSZ, &ignore, nullptr);
}

}  // namespace metawarp::output
