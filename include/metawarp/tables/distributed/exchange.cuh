#pragma once
// The exchange: moves runs of elements between shards (transfer.hpp). Two
// implementations of one interface:
//   LocalCopyExchange  cudaMemcpyPeerAsync per transfer: device-to-device
//                      copies when shards share a GPU, peer copies (over
//                      NVLink/PCIe, staged by the driver if needed) otherwise;
//   NcclExchange       ncclSend/ncclRecv between distinct GPUs inside one
//                      ncclGroupStart/End (nccl_exchange.cuh, built only when
//                      CMake found NCCL: METAWARP_HAVE_NCCL).
// make_exchange.cuh picks one for a device list.
// Both are called with the senders' streams holding the work that produced
// the send buffers and return when every transfer has completed, so the
// caller may read the receive buffers on any stream and free the send ones.
#include <cuda_runtime_api.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "metawarp/cuda/error.hpp"
#include "metawarp/tables/distributed/shard_set.cuh"
#include "metawarp/tables/distributed/transfer.hpp"

namespace metawarp::tables::distributed {

class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual const char* name() const = 0;
  // Every transfer moves count * elem_bytes bytes from send[from] + offset to
  // recv[to] + offset (device pointers on the shards' devices).
  virtual void run(const std::vector<Transfer>& transfers, std::size_t elem_bytes,
                   const std::vector<const void*>& send, const std::vector<void*>& recv) = 0;

  // Typed convenience: buffers of T.
  template <class T>
  void run_typed(const std::vector<Transfer>& transfers, const std::vector<const T*>& send,
                 const std::vector<T*>& recv) {
    run(transfers, sizeof(T), std::vector<const void*>(send.begin(), send.end()),
        std::vector<void*>(recv.begin(), recv.end()));
  }
};

class LocalCopyExchange final : public Exchange {
 public:
  explicit LocalCopyExchange(const ShardSet& shards) : shards_(shards) {}
  const char* name() const override { return "local-copy"; }

  void run(const std::vector<Transfer>& transfers, std::size_t elem_bytes,
           const std::vector<const void*>& send, const std::vector<void*>& recv) override {
    for (const Transfer& t : transfers) {
      if (t.count == 0) continue;
      DeviceGuard on(shards_.device(t.from));
      const auto* src = static_cast<const unsigned char*>(send[t.from]) + t.send_offset * elem_bytes;
      auto* dst = static_cast<unsigned char*>(recv[t.to]) + t.recv_offset * elem_bytes;
      cuda::check(cudaMemcpyPeerAsync(dst, shards_.device(t.to), src, shards_.device(t.from),
                                      t.count * elem_bytes, shards_.stream(t.from)),
                  "copying a shard exchange segment");
    }
    shards_.synchronize_all();
  }

 private:
  const ShardSet& shards_;
};

}  // namespace metawarp::tables::distributed
