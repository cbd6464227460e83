#include "output/remove_on_failure.hpp"

#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>

namespace metawarp::output {
namespace {

// A slot goes free -> filling -> live -> free. Only live slots are unlinked
// by the signal handler, so it never reads a path while it is being copied.
enum SlotState : int { free_slot = 0, filling = 1, live = 2 };

struct Slot {
  std::atomic<int> state{free_slot};
  char path[registry_path_bytes];
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slots");

std::array<Slot, registry_slots> registry;

int claim_slot(const std::string& path) {
  if (path.size() >= registry_path_bytes)
    throw std::runtime_error("cannot write '" + path + "': the path is longer than " +
                             std::to_string(registry_path_bytes - 1) + " bytes");
  for (int i = 0; i < registry_slots; ++i) {
    int expected = free_slot;
    if (!registry[i].state.compare_exchange_strong(expected, filling)) continue;
    std::memcpy(registry[i].path, path.c_str(), path.size() + 1);
    registry[i].state.store(live, std::memory_order_release);
    return i;
  }
  throw std::runtime_error("cannot write '" + path + "': more than " +
                           std::to_string(registry_slots) + " output files open at once");
}

}  // namespace

RemoveOnFailure::RemoveOnFailure(const std::filesystem::path& path)
    : slot_(claim_slot(std::filesystem::absolute(path).string())) {}

RemoveOnFailure::RemoveOnFailure(RemoveOnFailure&& other) noexcept : slot_(other.slot_) {
  other.slot_ = -1;
}

RemoveOnFailure::~RemoveOnFailure() {
  if (slot_ < 0) return;
  ::unlink(registry[slot_].path);  // before the slot is freed: no moment without cleanup
  keep();
}

void RemoveOnFailure::keep() noexcept {
  if (slot_ < 0) return;
  registry[slot_].state.store(free_slot, std::memory_order_release);
  slot_ = -1;
}

bool is_registered(const std::filesystem::path& path) noexcept {
  for (const Slot& slot : registry)
    if (slot.state.load(std::memory_order_acquire) == live &&
        std::strcmp(slot.path, path.c_str()) == 0)
      return true;
  return false;
}

void remove_registered_paths() noexcept {
  for (Slot& slot : registry)
    if (slot.state.load(std::memory_order_acquire) == live) ::unlink(slot.path);
}

}  // namespace metawarp::output
