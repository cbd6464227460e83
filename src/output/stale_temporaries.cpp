#include "output/stale_temporaries.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <optional>
#include <string>
#include <string_view>

#include "output/remove_on_failure.hpp"

namespace metawarp::output {
namespace {

constexpr std::string_view temporary_infix = ".tmp-";

bool starts_with(std::string_view text, std::string_view start) {
  return text.substr(0, start.size()) == start;
}

// The pid in `<target name>.tmp-<pid>` or `<target name>.<part>.tmp-<pid>`
// (part: lowercase letters), when `name` has one of those forms.
std::optional<pid_t> temporary_pid(std::string_view name, std::string_view target_name) {
  if (!starts_with(name, target_name)) return std::nullopt;
  std::string_view rest = name.substr(target_name.size());
  if (!starts_with(rest, temporary_infix)) {  // a part first: '.' and lowercase letters
    if (!starts_with(rest, ".")) return std::nullopt;
    std::size_t end = 1;
    while (end < rest.size() && rest[end] >= 'a' && rest[end] <= 'z') ++end;
    if (end == 1) return std::nullopt;
    rest.remove_prefix(end);
    if (!starts_with(rest, temporary_infix)) return std::nullopt;
  }
  const std::string_view digits = rest.substr(temporary_infix.size());
  if (digits.size() > 10) return std::nullopt;
  long long pid = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    pid = pid * 10 + (c - '0');
  }
  // kill() with 0 or a negative pid means a process group: never ask that.
  if (pid <= 0 || pid > INT_MAX) return std::nullopt;
  return pid_t(pid);
}

bool process_gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace

std::filesystem::path temporary_path(const std::filesystem::path& target, pid_t pid) {
  std::filesystem::path temp = target;
  temp += std::string(temporary_infix) + std::to_string(pid);
  return temp;
}

void remove_stale_temporaries(const std::filesystem::path& target) {
  const std::filesystem::path folder = target.parent_path();
  const std::string target_name = target.filename().string();
  DIR* dir = ::opendir(folder.c_str());
  if (!dir) return;
  const pid_t self = ::getpid();
  const uid_t user = ::geteuid();
  while (const dirent* entry = ::readdir(dir)) {
    const std::optional<pid_t> pid = temporary_pid(entry->d_name, target_name);
    if (!pid) continue;
    if (*pid == self ? is_registered(folder / entry->d_name) : !process_gone(*pid)) continue;
    // Checked and removed through the listed folder: the file checked is
    // the file removed (in a sticky folder only its owner, this user, could
    // swap it).
    struct stat st {};
    if (::fstatat(::dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(st.st_mode) && st.st_uid == user)
      ::unlinkat(::dirfd(dir), entry->d_name, 0);
  }
  ::closedir(dir);
}

}  // namespace metawarp::output
