#include "output/output_path.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <stdexcept>

#include "output/file_kind.hpp"
#include "output/path_walk.hpp"
#include "output/write_error.hpp"

namespace metawarp::output {
namespace {

namespace fs = std::filesystem;

std::string kind_of(const struct stat& st) {
  if (S_ISREG(st.st_mode))
    return "a regular file with " + std::to_string(st.st_nlink) +
           " hard links (replacing it would separate it from its other names)";
  return file_kind(st);
}

std::atomic<int> highest_output_descriptor{INT_MAX};

constexpr const char* allowed_kinds =
    "; an output must be a new file, a regular file to replace, a character device, a FIFO or "
    "a descriptor";
constexpr const char* files_only =
    "; this output is written in parts at their offsets, which needs a new file or a regular "
    "file to replace";

// Why the walk stopped at a link that the rule does not follow.
std::string refused_link(const std::string& path, const PathEnd& end) {
  const bool given = end.path == fs::absolute(path).lexically_normal();
  return (given ? std::string("it") : "'" + end.path.string() + "' on its way") +
         " is a symbolic link of another user (uid " + std::to_string(end.st.st_uid) +
         ") in the sticky world-writable folder '" + end.path.parent_path().string() +
         "'; metawarp does not follow such links (the kernel's protected_symlinks rule), so "
         "that no other user chooses the file it writes: remove the link or choose another path";
}

}  // namespace

void limit_output_descriptors_to_standard_streams() {
  highest_output_descriptor.store(STDERR_FILENO);
}

fs::path resolve_path(const std::string& path) {
  const PathEnd end = walk_path(path);
  if (end.link_refused) throw std::runtime_error("'" + path + "': " + refused_link(path, end));
  if (end.error == ELOOP && !end.folder_error)
    throw std::runtime_error("'" + path + "': too many levels of symbolic links");
  if (end.folder_error) return fs::absolute(path).lexically_normal();
  return end.path;
}

OutputTarget resolve_output(const std::string& path, std::string_view noun, Writes writes) {
  auto refuse = [&](const std::string& why) { return write_error(noun, path, why); };
  if (path.empty()) throw refuse("no file name given");
  const PathEnd end = walk_path(path);
  if (end.link_refused) throw refuse(refused_link(path, end));
  OutputTarget target;
  target.path = end.path;

  if (end.descriptor >= 0) {
    const std::string descriptor = "descriptor " + std::to_string(end.descriptor);
    if (writes == Writes::at_offsets) throw refuse("it names " + descriptor + files_only);
    if (end.descriptor > highest_output_descriptor.load())
      throw refuse(descriptor + " is the server's own: a query run by a server can write to "
                   "the client's /dev/stdout and /dev/stderr, no other descriptor");
    const int flags = ::fcntl(end.descriptor, F_GETFL);
    if (flags < 0) throw refuse(descriptor + " is not open");
    if ((flags & O_ACCMODE) == O_RDONLY) throw refuse(descriptor + " is open for reading only");
    target.kind = TargetKind::descriptor;
    target.descriptor = end.descriptor;
    return target;
  }
  if (end.folder_error)
    throw refuse("its folder '" + end.path.string() + "': " + std::strerror(end.error));
  const std::string leads = end.followed_link ? "it leads to '" + end.path.string() + "'" : "";
  if (end.error != 0 && end.error != ENOENT)
    throw refuse((leads.empty() ? "" : leads + ": ") + std::strerror(end.error));
  const bool exists = end.error == 0;
  if (path.back() == '/' && !(exists && S_ISDIR(end.st.st_mode)))
    throw refuse("not a file name (it ends with '/')");

  if (exists) {
    const std::string what = (leads.empty() ? "it is " : leads + ", ") + kind_of(end.st);
    if (S_ISCHR(end.st.st_mode) || S_ISFIFO(end.st.st_mode)) {
      if (writes == Writes::at_offsets) throw refuse(what + files_only);
      target.kind = TargetKind::device_or_fifo;
      target.device = end.st.st_dev;
      target.inode = end.st.st_ino;
      return target;
    }
    if (!S_ISREG(end.st.st_mode) || end.st.st_nlink != 1) throw refuse(what + allowed_kinds);
    target.kind = TargetKind::regular_file;
    target.mode = end.st.st_mode & 07777;
    target.owner = end.st.st_uid;
    target.group = end.st.st_gid;
  }
  // The file is written as a temporary next to its target, then renamed:
  // that needs a folder the process can create files in.
  const fs::path folder = end.path.parent_path();
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw refuse("cannot create files in its folder '" + folder.string() +
                 "': " + std::strerror(errno));
  return target;
}

}  // namespace metawarp::output
