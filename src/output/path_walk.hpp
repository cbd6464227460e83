#pragma once
// Where a path leads, resolved one component at a time as the kernel
// resolves it, with the kernel's rule for symbolic links (fs.protected_symlinks)
// applied to every link on the way whatever the system's setting: a link in a
// sticky world-writable folder (/tmp) is followed only when its owner is the
// caller or the folder's owner. Anyone may plant a link in /tmp; following
// it would let them choose which file root's output replaces or creates.
//
// Each link is checked and read through the folder that holds it, opened
// once (fstatat and readlinkat on that descriptor), so the link checked is
// the link followed. The walk ends before the links in the process's own
// descriptor folder (/proc/<pid>/fd, where /dev/stdout, /dev/fd/N and
// /proc/self/fd/N lead): those name a descriptor, not a file.
#include <sys/stat.h>

#include <filesystem>
#include <string>

namespace metawarp::output {

struct PathEnd {
  // Absolute, without symbolic links, "." or "..": where the path leads. When
  // a folder on the way failed (folder_error), that folder.
  std::filesystem::path path;
  struct stat st {};  // lstat of `path` when error is 0 (of the refused link when link_refused)
  // 0: something is there (`st`); ENOENT: nothing is, in an existing folder;
  // another errno (ELOOP for too many links): the last component failed.
  int error = 0;
  bool folder_error = false;  // `error` is about a folder on the way, not the last component
  bool link_refused = false;  // `path` is a link that the rule does not follow
  bool followed_link = false;  // a link was followed on the way
  int descriptor = -1;        // >= 0: the path names this descriptor of the process
};

PathEnd walk_path(const std::string& path);

}  // namespace metawarp::output
