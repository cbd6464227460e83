#pragma once
// The output path rule, shared by every file metawarp writes.
//
// An output path may be
//  - a new path, or an existing regular file with one name: written to a
//    temporary next to it and renamed over it (atomic_file.hpp);
//  - a character device (/dev/null) or a FIFO: opened and written directly,
//    never replaced or removed;
//  - one of the process's descriptors, /dev/stdout, /dev/stderr, /dev/fd/N or
//    /proc/self/fd/N: written through a duplicate of it (an O_APPEND log
//    stays appended), never replaced or removed.
// Symbolic links are followed by the rule of path_walk.hpp (never another
// user's link in a sticky world-writable folder such as /tmp); a file
// reached through links is replaced at the end of the links, which stay.
// Anything else is refused, naming the path and what it is: a block device,
// a socket, a directory, a regular file with more than one hard link
// (replacing it would separate it from its other names).
// An output written at offsets (the database) must be a new path or a
// regular file: a stream cannot seek, and its spill files go next to it.
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace metawarp::output {

// How an output's bytes are written: in order (any output), or in parts at
// their offsets, by several threads (the database: only files).
enum class Writes { in_order, at_offsets };

enum class TargetKind {
  new_file,        // nothing there yet: created by the rename
  regular_file,    // replaced by the rename
  device_or_fifo,  // a character device or a FIFO: written directly
  descriptor,      // one of the process's open descriptors: written through it
};

// What an output path leads to.
struct OutputTarget {
  // Absolute, symlinks resolved: where the file goes (for a descriptor,
  // /proc/<pid>/fd/N).
  std::filesystem::path path;
  TargetKind kind = TargetKind::new_file;
  mode_t mode = 0;  // regular_file: its permission bits and owner
  uid_t owner = 0;
  gid_t group = 0;
  dev_t device = 0;  // device_or_fifo: the file that opening `path` must find
  ino_t inode = 0;
  int descriptor = -1;  // descriptor: its number

  // Written to a temporary and renamed into place (a file); otherwise
  // written directly, and never removed.
  bool renamed() const { return kind == TargetKind::new_file || kind == TargetKind::regular_file; }
};

// Applies the rule; throws write_error(noun, path, why) when the path is not
// allowed or a new file's folder cannot be written. Creates and removes nothing.
OutputTarget resolve_output(const std::string& path, std::string_view noun,
                            Writes writes = Writes::in_order);

// resolve_output() for its checks alone, for commands that check their
// outputs before they start working.
inline void check_output_path(const std::string& path, std::string_view noun,
                              Writes writes = Writes::in_order) {
  (void)resolve_output(path, noun, writes);
}

// The descriptors an output path may name: all of the process's, unless a
// server running queries for clients (serve) limits them to 0, 1 and 2,
// which hold the client's streams during a query; its other descriptors are
// its own (its socket, its log). Called before any query runs.
void limit_output_descriptors_to_standard_streams();

// Where `path` leads, whether or not something is there: symbolic links
// followed by the rule (dangling ones too), absolute and canonical. Falls
// back to the lexically normal absolute path when a folder on the way is
// missing. Throws std::runtime_error for a symlink loop or a link the rule
// does not follow.
std::filesystem::path resolve_path(const std::string& path);

}  // namespace metawarp::output
