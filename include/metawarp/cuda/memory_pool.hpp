#pragma once
// The library's stream-ordered memory pools: one CUDA memory pool per device
// for the temporary buffers of multi-step operations (pooled_buffer.hpp),
// so that an operation run again allocates nothing from the driver.
//
// Why a process-wide pool per device and not a scratch arena per table: the
// memory must outlive the object that used it. An application (and
// bench_distributed) makes a distributed table, uses it and frees it, then
// makes the next one; an arena owned by the table would start empty every
// time and each first call would pay cudaMalloc again, and cudaFree, which
// waits for the whole device. A pool also serves every size from one reserve
// (a split's buffers, then an exchange's, then a merge's) where an arena per
// use would keep the largest of each.
//
// Why our own pool and not the device's default one: the release threshold
// below (keep everything) would change the behaviour of every other user of
// cudaMallocAsync in the application. The memory stays reserved until
// trim_device_pools() or the process ends; the tables' own storage (cudaMalloc)
// does not draw on it, so an application short of memory between phases may
// trim.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "metawarp/config.hpp"
#include "metawarp/cuda/error.hpp"

namespace metawarp::cuda {

// Owning handle of one cudaMemPool_t of device memory on `device`, which
// keeps what it has reserved once freed (release threshold: everything).
class memory_pool {
 public:
  explicit memory_pool(int device) : device_(device) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    check(cudaMemPoolCreate(&pool_, &props), "creating a device memory pool");
    std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
    const cudaError_t status =
        cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep);
    if (status != cudaSuccess) {
      cudaMemPoolDestroy(pool_);
      check(status, "setting a memory pool's release threshold");
    }
  }
  ~memory_pool() { cudaMemPoolDestroy(pool_); }
  memory_pool(const memory_pool&) = delete;
  memory_pool& operator=(const memory_pool&) = delete;

  cudaMemPool_t get() const noexcept { return pool_; }
  int device() const noexcept { return device_; }

  // Lets kernels and copies on `peer` read and write this pool's memory.
  // A pool's memory does not follow cudaDeviceEnablePeerAccess: without this
  // a peer copy is staged through the host and NCCL, which in one process
  // writes straight into the peer's buffers, faults. Once per peer; false
  // where the hardware has no peer path (copies are then staged anyway).
  bool share_with(int peer) {
    if (peer == device_) return true;
    if (shared_with(peer)) return true;
    int can = 0;
    check(cudaDeviceCanAccessPeer(&can, peer, device_), "asking for peer access");
    if (can == 0) return false;
    cudaMemAccessDesc access{};
    access.location.type = cudaMemLocationTypeDevice;
    access.location.id = peer;
    access.flags = cudaMemAccessFlagsProtReadWrite;
    check(cudaMemPoolSetAccess(pool_, &access, 1), "sharing a memory pool with a peer GPU");
    peers_.push_back(peer);
    return true;
  }

  // Hands back to the driver what no allocation holds.
  void trim() { check(cudaMemPoolTrimTo(pool_, 0), "trimming a memory pool"); }

 private:
  bool shared_with(int peer) const {
    for (int p : peers_) if (p == peer) return true;
    return false;
  }

  int device_;
  cudaMemPool_t pool_ = nullptr;
  std::vector<int> peers_;
};

namespace detail {

// Every device's pool, made on first use; lives until the process ends
// (pools of a device that is reset are not supported).
struct device_pools {
  std::mutex mutex;
  std::vector<std::unique_ptr<memory_pool>> by_device;

  static device_pools& instance() {
    static device_pools pools;
    return pools;
  }
  memory_pool& get(int device) {  // with mutex held
    if (device < 0) throw std::invalid_argument("no memory pool for a negative device");
    if (by_device.size() <= std::size_t(device)) by_device.resize(std::size_t(device) + 1);
    if (!by_device[device]) by_device[device] = std::make_unique<memory_pool>(device);
    return *by_device[device];
  }
};

}  // namespace detail

// The pool of `device` (thread-safe; made on first use).
inline cudaMemPool_t device_pool(int device) {
  auto& pools = detail::device_pools::instance();
  std::lock_guard<std::mutex> lock(pools.mutex);
  return pools.get(device).get();
}

// Lets `peer` use the pool memory of `device` (memory_pool::share_with).
inline bool share_device_pool(int device, int peer) {
  auto& pools = detail::device_pools::instance();
  std::lock_guard<std::mutex> lock(pools.mutex);
  return pools.get(device).share_with(peer);
}

// Hands every pool's unused memory back to the driver (e.g. before a phase
// that needs the device's memory for other things). Call with no pooled
// buffer in flight that should keep its memory cached.
inline void trim_device_pools() {
  auto& pools = detail::device_pools::instance();
  std::lock_guard<std::mutex> lock(pools.mutex);
  for (auto& pool : pools.by_device) {
    if (pool) pool->trim();
  }
}

}  // namespace metawarp::cuda
