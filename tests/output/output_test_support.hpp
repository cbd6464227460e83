#pragma once
// Scratch folders and small file helpers for the output module's tests.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"
#include "output/atomic_file.hpp"
#include "scratch_dir.hpp"

namespace metawarp::test {

namespace fs = std::filesystem;


inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Names in `dir` that contain ".tmp-": temporaries left behind.
inline std::vector<std::string> temporaries_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().find(".tmp-") != std::string::npos)
      names.push_back(entry.path().filename().string());
  return names;
}

inline struct stat lstat_of(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) throw std::runtime_error("lstat " + path);
  return st;
}

// The message of the exception f throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// Writes `text` to `path` as a query output is written (committed); the
// error's message, or "" when it worked.
inline std::string error_writing(const std::string& path, const std::string& text) {
  return error_of([&] {
    output::AtomicFile file(path, output::OnFailure::remove_existing);
    file.write(text);
    file.commit();
  });
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// True when the test runs as root (it can give files to another user);
// otherwise warns "not root: <why_needed>" and the caller checks nothing.
inline bool running_as_root(const std::string& why_needed) {
  if (::geteuid() == 0) return true;
  WARN("not root: " + why_needed);
  return false;
}

}  // namespace metawarp::test
