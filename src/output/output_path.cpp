#include "output/output_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "output/file_kind.hpp"
#include "output/write_error.hpp"

namespace metawarp::output {
namespace {

namespace fs = std::filesystem;

// Linux gives up after 40 links as well (ELOOP).
constexpr int max_symlink_hops = 40;

// The end of `path`'s chain of symbolic links (the path itself when it is no
// link) and what lstat says about it: errno 0 with `st` filled, or lstat's errno.
struct LinkEnd {
  fs::path path;
  struct stat st {};
  int error = 0;
};

LinkEnd follow_links(const std::string& path) {
  LinkEnd end{fs::path(path)};
  for (int hops = 0;; ++hops) {
    if (::lstat(end.path.c_str(), &end.st) != 0) {
      end.error = errno;
      return end;
    }
    if (!S_ISLNK(end.st.st_mode)) return end;
    if (hops == max_symlink_hops) {
      end.error = ELOOP;
      return end;
    }
    std::error_code ec;
    const fs::path target = fs::read_symlink(end.path, ec);
    if (ec) {
      end.error = ec.value();
      return end;
    }
    end.path = target.is_absolute() ? target : end.path.parent_path() / target;
  }
}

fs::path folder_of(const fs::path& path) {
  return path.parent_path().empty() ? fs::path(".") : path.parent_path();
}

// `path` with its folder made canonical (or at least absolute and normal).
fs::path with_canonical_folder(const fs::path& path) {
  std::error_code ec;
  const fs::path folder = fs::canonical(folder_of(path), ec);
  if (!ec) return folder / path.filename();
  return fs::absolute(path, ec).lexically_normal();
}

std::string kind_of(const struct stat& st) {
  if (S_ISREG(st.st_mode))
    return "a regular file with " + std::to_string(st.st_nlink) +
           " hard links (replacing it would separate it from its other names)";
  return file_kind(st);
}

}  // namespace

fs::path resolve_path(const std::string& path) {
  const LinkEnd end = follow_links(path);
  if (end.error == ELOOP)
    throw std::runtime_error("'" + path + "': too many levels of symbolic links");
  return with_canonical_folder(end.path);
}

OutputTarget resolve_output(const std::string& path, std::string_view noun) {
  auto refuse = [&](const std::string& why) { return write_error(noun, path, why); };
  if (path.empty()) throw refuse("no file name given");
  const LinkEnd end = follow_links(path);
  const bool is_link = end.path != fs::path(path);
  const std::string link_note = is_link ? "it leads to '" + end.path.string() + "'" : "";
  if (end.error != 0 && end.error != ENOENT)
    throw refuse((is_link ? link_note + ": " : "") + std::strerror(end.error));

  OutputTarget target;
  if (end.error == 0) {
    if (!S_ISREG(end.st.st_mode) || end.st.st_nlink != 1)
      throw refuse((is_link ? link_note + ", " : "it is ") + kind_of(end.st) +
                   "; an output must be a new file or a regular file to replace");
    target.exists = true;
    target.mode = end.st.st_mode & 07777;
    target.owner = end.st.st_uid;
    target.group = end.st.st_gid;
  } else if (end.path.filename().empty()) {
    throw refuse("not a file name (it ends with '/')");
  }
  // The file is written as a temporary next to its target, then renamed:
  // that needs a folder the process can create files in.
  const fs::path folder = folder_of(end.path);
  struct stat folder_st {};
  if (::stat(folder.c_str(), &folder_st) != 0)
    throw refuse("its folder '" + folder.string() + "': " + std::strerror(errno));
  if (!S_ISDIR(folder_st.st_mode))
    throw refuse("its folder '" + folder.string() + "' is not a directory");
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw refuse("cannot create files in its folder '" + folder.string() +
                 "': " + std::strerror(errno));
  target.path = with_canonical_folder(end.path);
  return target;
}

}  // namespace metawarp::output
