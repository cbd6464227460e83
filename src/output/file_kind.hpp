#pragma once
// What a path is, in the words messages use ("a FIFO (named pipe)"): for
// the outputs that must be regular files, the database that is read in
// place, and the inputs a build reads once per partition.
#include <sys/stat.h>

#include <string>

namespace metawarp::output {

// "a directory", "a character device", "a block device", "a FIFO (named
// pipe)", "a socket", "a regular file", or "not a regular file".
std::string file_kind(const struct stat& st);

}  // namespace metawarp::output
