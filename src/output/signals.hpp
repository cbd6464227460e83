#pragma once
// What metawarp does when it is interrupted. Called once, first thing in main.
//
// SIGINT, SIGTERM, SIGHUP and SIGPIPE: every file registered with
// RemoveOnFailure (temporaries; old query outputs that must not look current)
// is unlinked, then the signal's default action is restored and the signal
// raised again, so the process ends as that signal would end it (exit status
// "killed by SIGINT"). A signal that was ignored when the process started
// (nohup, background jobs without job control) stays ignored.
// SIGBUS (a fault on a file written through memory, AtomicFile::reserve())
// says so in one line, removes the same files and ends the process as the
// fault would.
// SIGXFSZ is ignored, so a write over the file size limit fails with EFBIG
// and the ordinary error path (message, cleanup, exit status 1) runs.
// SIGKILL cannot be caught: it may leave a `<target>.tmp-<pid>` behind, which
// the next write to the same target removes (stale_temporaries.hpp).
namespace metawarp::output {

void install_signal_handlers();

}  // namespace metawarp::output
