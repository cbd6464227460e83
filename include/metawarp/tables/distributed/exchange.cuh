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
// the send buffers. enqueue() only enqueues on the shards' streams (several
// exchanges back to back cost one wait, and work launched after it on other
// streams overlaps it); wait() returns when every transfer enqueued so far
// has completed, so the caller may read the receive buffers on any stream
// and free the send ones; run() is both. A shard's segment to itself is a
// device copy on its copy stream, joined back into its stream, so it runs
// beside the transfers between GPUs instead of before them.
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
  explicit Exchange(const ShardSet& shards) : shards_(shards) {}
  virtual ~Exchange() = default;
  virtual const char* name() const = 0;
  // Every transfer moves count * elem_bytes bytes from send[from] + offset to
  // recv[to] + offset (device pointers on the shards' devices).
  virtual void enqueue(const std::vector<Transfer>& transfers, std::size_t elem_bytes,
                       const std::vector<const void*>& send, const std::vector<void*>& recv) = 0;
  void wait() { shards_.synchronize_streams(); }
  void run(const std::vector<Transfer>& transfers, std::size_t elem_bytes,
           const std::vector<const void*>& send, const std::vector<void*>& recv) {
    enqueue(transfers, elem_bytes, send, recv);
    wait();
  }

  // Typed convenience: buffers of T.
  template <class T>
  void enqueue_typed(const std::vector<Transfer>& transfers, const std::vector<const T*>& send,
                     const std::vector<T*>& recv) {
    enqueue(transfers, sizeof(T), std::vector<const void*>(send.begin(), send.end()),
            std::vector<void*>(recv.begin(), recv.end()));
  }
  template <class T>
  void run_typed(const std::vector<Transfer>& transfers, const std::vector<const T*>& send,
                 const std::vector<T*>& recv) {
    enqueue_typed(transfers, send, recv);
    wait();
  }

 protected:
  static const unsigned char* source(const Transfer& t, std::size_t elem_bytes,
                                     const std::vector<const void*>& send) {
    return static_cast<const unsigned char*>(send[t.from]) + t.send_offset * elem_bytes;
  }
  static unsigned char* destination(const Transfer& t, std::size_t elem_bytes,
                                    const std::vector<void*>& recv) {
    return static_cast<unsigned char*>(recv[t.to]) + t.recv_offset * elem_bytes;
  }
  // The shards with a segment to themselves, their copy streams forked from
  // their streams (call before enqueueing anything else, so the copies do
  // not wait for the transfers).
  std::vector<bool> fork_own_segments(const std::vector<Transfer>& transfers) const {
    std::vector<bool> own(shards_.size(), false);
    for (const Transfer& t : transfers) {
      if (t.count > 0 && t.from == t.to && !own[t.from]) {
        own[t.from] = true;
        shards_.fork_copy(t.from);
      }
    }
    return own;
  }
  // Each shard's segment to itself on its copy stream, joined back into its
  // stream (the exchange's wait covers it).
  void copy_own_segments(const std::vector<Transfer>& transfers, std::size_t elem_bytes,
                         const std::vector<const void*>& send, const std::vector<void*>& recv,
                         const std::vector<bool>& own) const {
    for (const Transfer& t : transfers) {
      if (t.count == 0 || t.from != t.to) continue;
      DeviceGuard on(shards_.device(t.from));
      cuda::check(cudaMemcpyAsync(destination(t, elem_bytes, recv), source(t, elem_bytes, send),
                                  t.count * elem_bytes, cudaMemcpyDeviceToDevice,
                                  shards_.copy_stream(t.from)),
                  "copying a shard's own exchange segment");
    }
    for (unsigned s = 0; s < own.size(); ++s) {
      if (own[s]) shards_.join_copy(s);
    }
  }

  const ShardSet& shards_;
};

class LocalCopyExchange final : public Exchange {
 public:
  explicit LocalCopyExchange(const ShardSet& shards) : Exchange(shards) {}
  const char* name() const override { return "local-copy"; }

  // Transfers between shards on the sender's stream (peer copies between
  // GPUs), a shard's own segment beside them.
  void enqueue(const std::vector<Transfer>& transfers, std::size_t elem_bytes,
               const std::vector<const void*>& send, const std::vector<void*>& recv) override {
    const std::vector<bool> own = fork_own_segments(transfers);
    for (const Transfer& t : transfers) {
      if (t.count == 0 || t.from == t.to) continue;
      DeviceGuard on(shards_.device(t.from));
      cuda::check(cudaMemcpyPeerAsync(destination(t, elem_bytes, recv), shards_.device(t.to),
                                      source(t, elem_bytes, send), shards_.device(t.from),
                                      t.count * elem_bytes, shards_.stream(t.from)),
                  "copying a shard exchange segment");
    }
    copy_own_segments(transfers, elem_bytes, send, recv, own);
  }
};

}  // namespace metawarp::tables::distributed
