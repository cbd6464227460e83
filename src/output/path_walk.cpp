#include "output/path_walk.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <optional>
#include <string_view>
#include <vector>

#include "output/file_descriptor.hpp"

namespace metawarp::output {
namespace {

namespace fs = std::filesystem;

// Linux gives up after 40 links as well (ELOOP).
constexpr int max_links = 40;

// The components of `path` before those already in `todo`: empty ones and
// "." dropped (they change nothing).
void push_components(std::deque<std::string>& todo, std::string_view path) {
  std::vector<std::string> parts;
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    const std::string_view part = path.substr(0, slash);
    if (!part.empty() && part != ".") parts.emplace_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  todo.insert(todo.begin(), parts.begin(), parts.end());
}

bool all_digits(std::string_view text) {
  if (text.empty() || text.size() > 9) return false;  // 9 digits fit an int
  for (char c : text)
    if (c < '0' || c > '9') return false;
  return true;
}

// Whether `folder` is this process's descriptor folder: /proc/<pid>/fd, or
// /proc/<pid>/task/<tid>/fd (where /proc/thread-self/fd leads).
bool is_own_descriptor_folder(const fs::path& folder) {
  const fs::path own = fs::path("/proc") / std::to_string(::getpid());
  if (folder == own / "fd") return true;
  return folder.filename() == "fd" && folder.parent_path().parent_path() == own / "task" &&
         all_digits(folder.parent_path().filename().string());
}

// The kernel's protected_symlinks rule.
bool may_follow(const struct stat& folder, const struct stat& link) {
  const bool sticky_world_writable = (folder.st_mode & S_ISVTX) && (folder.st_mode & S_IWOTH);
  return !sticky_world_writable || link.st_uid == ::geteuid() || link.st_uid == folder.st_uid;
}

// The text of the link `name` in `folder`, or nullopt with errno set.
std::optional<std::string> read_link(int folder, const std::string& name, std::size_t size) {
  std::string text(size, '\0');
  for (;;) {
    const ssize_t got = ::readlinkat(folder, name.c_str(), text.data(), text.size());
    if (got < 0) return std::nullopt;
    if (std::size_t(got) < text.size()) {
      text.resize(std::size_t(got));
      return text;
    }
    text.resize(text.size() * 2);  // the link grew since lstat: read it again
  }
}

FileDescriptor open_folder(int at, const char* name) {
  return FileDescriptor(::openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

}  // namespace

PathEnd walk_path(const std::string& path) {
  PathEnd end;
  auto stop = [&](fs::path where, int error, bool folder) {
    end.path = std::move(where);
    end.error = error;
    end.folder_error = folder;
    return end;
  };
  std::deque<std::string> todo;
  push_components(todo, path);
  fs::path at = !path.empty() && path.front() == '/' ? fs::path("/") : fs::current_path();
  FileDescriptor folder = open_folder(AT_FDCWD, at.c_str());
  if (!folder.is_open()) return stop(at, errno, true);
  int links = 0;
  while (!todo.empty()) {
    const std::string name = std::move(todo.front());
    todo.pop_front();
    const bool last = todo.empty();
    if (name == "..") {
      // `at` has no links in it: its lexical parent is its real one.
      at = at.parent_path();
      folder = open_folder(folder.get(), "..");
      if (!folder.is_open()) return stop(at, errno, true);
      continue;
    }
    fs::path next = at / name;
    if (last && all_digits(name) && is_own_descriptor_folder(at)) {
      end.path = std::move(next);
      end.descriptor = std::stoi(name);
      return end;
    }
    struct stat st {};
    if (::fstatat(folder.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      return stop(std::move(next), errno, !last);
    if (S_ISLNK(st.st_mode)) {
      struct stat folder_st {};
      if (::fstat(folder.get(), &folder_st) != 0) return stop(at, errno, true);
      if (!may_follow(folder_st, st)) {
        end.path = std::move(next);
        end.st = st;
        end.link_refused = true;
        return end;
      }
      if (++links > max_links) return stop(std::move(next), ELOOP, !last);
      const std::optional<std::string> target =
          read_link(folder.get(), name, std::size_t(st.st_size) + 1);
      if (!target) return stop(std::move(next), errno, !last);
      end.followed_link = true;
      if (!target->empty() && target->front() == '/') {
        at = "/";
        folder = open_folder(AT_FDCWD, "/");
        if (!folder.is_open()) return stop(at, errno, true);
      }
      push_components(todo, *target);
      continue;
    }
    at = std::move(next);
    if (last) {
      end.path = std::move(at);
      end.st = st;
      return end;
    }
    if (!S_ISDIR(st.st_mode)) return stop(at, ENOTDIR, true);
    folder = open_folder(folder.get(), name.c_str());
    if (!folder.is_open()) return stop(at, errno, true);
  }
  // The path ends at a folder ("/", ".", "x/.."), or a link's target does.
  end.path = at;
  if (::fstat(folder.get(), &end.st) != 0) return stop(at, errno, false);
  return end;
}

}  // namespace metawarp::output
