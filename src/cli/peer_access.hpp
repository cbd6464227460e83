#pragma once
// Whether the client of a server may read a file now, judged for the
// client's credentials (Peer: uid, gid, supplementary groups) as the kernel
// judges an open() by the client itself: search permission on every folder
// the path passes through (symbolic links followed, relative paths from this
// process's working folder), then read permission on the file; the owner's
// bits for its owner, the group's for a member of its group, the others'
// otherwise; root may read anything. The server runs its client's query with
// its own rights, and may hold a file in memory that its client can no longer
// open: this keeps it from serving what the client could not read itself.
// POSIX ACLs are not looked at (only the mode bits).
#include <string>

#include "cli/unix_socket.hpp"

namespace metawarp::cli {

// Throws std::runtime_error naming `what` and `path`, the client's uid and
// the folder or file that refuses it (or why the path cannot be followed).
void require_readable_by(const Peer& client, const std::string& path, const std::string& what);

}  // namespace metawarp::cli
