#pragma once
// A fresh folder under the system's temporary folder for one test, removed
// with everything in it at scope exit. The one scratch-folder helper of the
// tests.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <string_view>

namespace metawarp::test {

class ScratchDir {
 public:
  explicit ScratchDir(std::string_view name = "test") {
    static std::atomic<int> counter{0};
    // append, not "literal" + string: GCC 12 reports a false -Wrestrict for that.
    std::string folder("metawarp_");
    folder.append(name).append("_").append(std::to_string(::getpid())).append("_");
    folder.append(std::to_string(counter++));
    path_ = std::filesystem::temp_directory_path() / folder;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }
  // The path of `name` in the folder, as a string.
  std::string file(std::string_view name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace metawarp::test
