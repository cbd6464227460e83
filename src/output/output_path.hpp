#pragma once
// The output path rule, shared by every file metawarp writes.
//
// An output path must be a new path or an existing regular file with one
// name (which is then replaced). Symbolic links are followed: the result is
// written next to the link's final target and replaces it; the link stays.
// Anything else is refused, naming the path and what it is:
//  - a device (as root, replacing /dev/null would turn it into a plain file),
//    a FIFO or a socket: there is no file there to replace;
//  - a directory;
//  - a regular file with more than one hard link: replacing it would silently
//    separate it from its other names.
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace metawarp::output {

// What an output path leads to.
struct OutputTarget {
  std::filesystem::path path;  // absolute, symlinks resolved: where the file goes
  bool exists = false;         // a regular file is there (to be replaced)
  mode_t mode = 0;             // when it exists: its permission bits and owner
  uid_t owner = 0;
  gid_t group = 0;
};

// Applies the rule; throws write_error(noun, path, why) when the path is not
// allowed or its folder cannot be written. Creates and removes nothing.
OutputTarget resolve_output(const std::string& path, std::string_view noun);

// resolve_output() for its checks alone, for commands that check their
// outputs before they start working.
inline void check_output_path(const std::string& path, std::string_view noun) {
  (void)resolve_output(path, noun);
}

// Where `path` leads, whether or not something is there: symbolic links
// followed (dangling ones too), the folder made absolute and canonical.
// Falls back to the lexically normal absolute path when the folder does not
// exist. Throws std::runtime_error for a symlink loop.
std::filesystem::path resolve_path(const std::string& path);

}  // namespace metawarp::output
