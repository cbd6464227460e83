#pragma once
// A file that exists only if the command succeeds: a temporary output, or an
// old output that must not survive a failed query looking current.
//
// From construction until keep(), the path is in a fixed-size registry that
// the interrupt handler (signals.hpp) empties by unlinking every path in it;
// the destructor unlinks it too unless keep() was called. The registry is
// process-wide and async-signal-safe: fixed char arrays and atomics, no
// allocation, no locks.
#include <filesystem>

namespace metawarp::output {

class RemoveOnFailure {
 public:
  // Registers `path` (absolute, so that it means the same file whatever
  // happens to the working directory). Throws std::runtime_error when the
  // path is longer than the registry holds or every slot is taken.
  explicit RemoveOnFailure(const std::filesystem::path& path);
  ~RemoveOnFailure();  // unless kept: unlinks the path, then frees the slot
  RemoveOnFailure(RemoveOnFailure&& other) noexcept;
  RemoveOnFailure& operator=(RemoveOnFailure&&) = delete;
  RemoveOnFailure(const RemoveOnFailure&) = delete;
  RemoveOnFailure& operator=(const RemoveOnFailure&) = delete;

  // The file stays: leaves the registry, the destructor does nothing.
  void keep() noexcept;

 private:
  int slot_ = -1;  // -1: kept (or moved from)
};

// Unlinks every registered path. Async-signal-safe: for the signal handler.
void remove_registered_paths() noexcept;

// Whether this process has `path` (absolute) registered now.
bool is_registered(const std::filesystem::path& path) noexcept;

// How many paths the registry can hold at once, and how long each may be.
inline constexpr int registry_slots = 64;
inline constexpr std::size_t registry_path_bytes = 4096;  // PATH_MAX, with the NUL

}  // namespace metawarp::output
