#include "output/stale_temporaries.hpp"

#include <dirent.h>
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

// The pid in `<target name>.tmp-<pid>`, when `name` has that form.
std::optional<pid_t> temporary_pid(std::string_view name, std::string_view target_name) {
  if (name.size() <= target_name.size() + temporary_infix.size() ||
      name.substr(0, target_name.size()) != target_name ||
      name.substr(target_name.size(), temporary_infix.size()) != temporary_infix)
    return std::nullopt;
  const std::string_view digits = name.substr(target_name.size() + temporary_infix.size());
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
  while (const dirent* entry = ::readdir(dir)) {
    const std::optional<pid_t> pid = temporary_pid(entry->d_name, target_name);
    if (!pid) continue;
    const std::filesystem::path stale = folder / entry->d_name;
    if (*pid == self ? is_registered(stale) : !process_gone(*pid)) continue;
    struct stat st {};
    if (::lstat(stale.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(stale.c_str());
  }
  ::closedir(dir);
}

}  // namespace metawarp::output
