#include "cli/peer_access.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <stdexcept>

#include "output/file_descriptor.hpp"

namespace metawarp::cli {
namespace {

// The kernel's limit on symbolic links in one lookup (ELOOP beyond).
constexpr int max_links = 40;
constexpr mode_t may_read = 4, may_search = 1;

bool in_group(const Peer& client, gid_t group) {
  return client.gid == group ||
         std::find(client.groups.begin(), client.groups.end(), group) != client.groups.end();
}

// The mode bits' rule: the owner's bits for the owner (even where the
// group's or others' would allow more), the group's for a member, else the
// others'.
bool permits(const Peer& client, const struct stat& status, mode_t wanted) {
  mode_t granted = status.st_mode & 07;
  if (client.uid == status.st_uid)
    granted = (status.st_mode >> 6) & 07;
  else if (in_group(client, status.st_gid))
    granted = (status.st_mode >> 3) & 07;
  return (granted & wanted) == wanted;
}

std::string describe(const struct stat& status) {
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", unsigned(status.st_mode & 07777));
  return std::string("mode ") + mode + ", owner uid " + std::to_string(status.st_uid) +
         ", group " + std::to_string(status.st_gid);
}

// The names of `path` in order, "" and "." left out ("a//./b" is a, b).
void push_names(std::deque<std::string>& names, const std::string& path) {
  std::deque<std::string> in_order;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    const std::string name = path.substr(start, end - start);
    if (!name.empty() && name != ".") in_order.push_back(name);
    start = end + 1;
  }
  names.insert(names.begin(), in_order.begin(), in_order.end());
}

std::string joined(const std::string& folder, const std::string& name) {
  if (folder.empty()) return name;
  return folder.back() == '/' ? folder + name : folder + "/" + name;
}

std::string link_target(int folder, const std::string& name, std::size_t size) {
  std::string target(size + 1, '\0');
  const ssize_t n = ::readlinkat(folder, name.c_str(), target.data(), target.size());
  if (n < 0) throw std::runtime_error(std::strerror(errno));
  // A link rewritten since its stat may be longer: read again.
  if (std::size_t(n) == target.size()) return link_target(folder, name, size * 2 + 64);
  target.resize(std::size_t(n));
  return target;
}

}  // namespace

void require_readable_by(const Peer& client, const std::string& path, const std::string& what) {
  if (client.uid == 0) return;  // root reads any file and searches any folder
  const auto refuse = [&](const std::string& why) {
    throw std::runtime_error(what + " '" + path + "': uid " + std::to_string(client.uid) +
                             " may not read it: " + why);
  };
  const auto start_at = [&](const char* folder) {
    output::FileDescriptor fd(::open(folder, O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!fd.is_open()) refuse(std::string("cannot open '") + folder + "': " + std::strerror(errno));
    return fd;
  };
  const bool absolute = !path.empty() && path.front() == '/';
  output::FileDescriptor folder = start_at(absolute ? "/" : ".");
  std::string shown = absolute ? "/" : "";  // the folder, for messages ("": the working folder)
  std::deque<std::string> names;
  push_names(names, path);
  int links = 0;
  struct stat status {};
  while (!names.empty()) {
    const std::string name = names.front();
    names.pop_front();
    if (::fstat(folder.get(), &status) != 0) refuse(std::strerror(errno));
    if (!permits(client, status, may_search))
      refuse("no search permission on " +
             (shown.empty() ? std::string("the working folder") : "the folder '" + shown + "'") +
             " (" + describe(status) + ")");
    const std::string here = joined(shown, name);
    if (::fstatat(folder.get(), name.c_str(), &status, AT_SYMLINK_NOFOLLOW) != 0)
      refuse("'" + here + "': " + std::strerror(errno));
    if (S_ISLNK(status.st_mode)) {
      // Followed as open() follows it: relative to its folder, or from the root.
      if (++links > max_links) refuse("too many symbolic links");
      std::string target;
      try {
        target = link_target(folder.get(), name, std::size_t(status.st_size));
      } catch (const std::runtime_error& e) {
        refuse("'" + here + "': " + e.what());
      }
      if (!target.empty() && target.front() == '/') {
        folder = start_at("/");
        shown.assign(1, '/');
      }
      push_names(names, target);
      continue;
    }
    if (names.empty()) {
      if (!permits(client, status, may_read))
        refuse("no read permission (" + describe(status) + ")");
      return;
    }
    if (!S_ISDIR(status.st_mode)) refuse("'" + here + "' is not a folder");
    folder = output::FileDescriptor(
        ::openat(folder.get(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!folder.is_open()) refuse("'" + here + "': " + std::strerror(errno));
    shown = here;
  }
  // The path names a folder ("/", ".", a link to one): it is what is read.
  if (::fstat(folder.get(), &status) != 0) refuse(std::strerror(errno));
  if (!permits(client, status, may_read)) refuse("no read permission (" + describe(status) + ")");
}

}  // namespace metawarp::cli
