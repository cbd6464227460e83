#include "output/file_kind.hpp"

namespace metawarp::output {

std::string file_kind(const struct stat& st) {
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISFIFO(st.st_mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  if (S_ISREG(st.st_mode)) return "a regular file";
  return "not a regular file";
}

}  // namespace metawarp::output
