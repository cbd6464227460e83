#pragma once
// Temporary files of atomic outputs: `<target>.tmp-<pid>` next to the target,
// and `<target>.<part>.tmp-<pid>` (part: lowercase letters) for the spill
// files of a database written in parts (`x.mwdb.features.tmp-<pid>`).
//
// A process killed by SIGKILL (the OOM killer, say) or a power cut cannot
// remove its temporaries. The next atomic write to the same target removes,
// of the regular files of those two forms that this user owns, those whose
// process is gone (kill(pid, 0) fails with ESRCH) and those with this
// process's own pid that it is not writing (an earlier process had the same
// pid, as happens in containers). Those of running processes are kept, and
// so are files of another user, also by root: a file someone else gave
// such a name is not metawarp's to remove. A process in another PID namespace (another container)
// writing to the same target at the same time looks gone: metawarp does not
// support two hosts writing one output at once.
#include <sys/types.h>

#include <filesystem>

namespace metawarp::output {

std::filesystem::path temporary_path(const std::filesystem::path& target, pid_t pid);

// Unlinks the stale temporaries of `target` (absolute, symlinks resolved).
// Best effort: a folder that cannot be listed is left as it is.
void remove_stale_temporaries(const std::filesystem::path& target);

}  // namespace metawarp::output
