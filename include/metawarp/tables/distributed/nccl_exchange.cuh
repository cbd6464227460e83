#pragma once
// The exchange between distinct GPUs through NCCL point-to-point calls: one
// communicator per shard (rank = shard number) made by ncclCommInitAll in
// this process; every transfer of a run is one ncclSend on the sender's
// communicator and stream and one ncclRecv on the receiver's, all inside one
// ncclGroupStart/End so the pairs progress together (no ordering deadlock).
// A shard's transfer to itself is a plain device copy. Included by
// exchange.cuh only when CMake found NCCL (METAWARP_HAVE_NCCL).
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "metawarp/cuda/error.hpp"
#include "metawarp/tables/distributed/exchange.cuh"

namespace metawarp::tables::distributed {

inline void nccl_check(ncclResult_t result, const char* what) {
  if (result != ncclSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + ncclGetErrorString(result));
  }
}

class NcclExchange final : public Exchange {
 public:
  explicit NcclExchange(const ShardSet& shards) : shards_(shards), comms_(shards.size()) {
    nccl_check(ncclCommInitAll(comms_.data(), int(shards.size()), shards.devices().data()),
               "creating the NCCL communicators (ncclCommInitAll)");
  }
  ~NcclExchange() override {
    for (ncclComm_t comm : comms_) {
      if (comm != nullptr) ncclCommDestroy(comm);
    }
  }
  NcclExchange(const NcclExchange&) = delete;
  NcclExchange& operator=(const NcclExchange&) = delete;

  const char* name() const override { return "nccl"; }

  void run(const std::vector<Transfer>& transfers, std::size_t elem_bytes,
           const std::vector<const void*>& send, const std::vector<void*>& recv) override {
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    try {
      for (const Transfer& t : transfers) {
        if (t.count == 0) continue;  // both sides know the count: both skip
        const auto* src = static_cast<const unsigned char*>(send[t.from]) + t.send_offset * elem_bytes;
        auto* dst = static_cast<unsigned char*>(recv[t.to]) + t.recv_offset * elem_bytes;
        const std::size_t bytes = t.count * elem_bytes;
        if (t.from == t.to) {
          DeviceGuard on(shards_.device(t.from));
          cuda::check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                                      shards_.stream(t.from)),
                      "copying a shard's own exchange segment");
          continue;
        }
        nccl_check(ncclSend(src, bytes, ncclChar, int(t.to), comms_[t.from], shards_.stream(t.from)),
                   "ncclSend");
        nccl_check(ncclRecv(dst, bytes, ncclChar, int(t.from), comms_[t.to], shards_.stream(t.to)),
                   "ncclRecv");
      }
    } catch (...) {
      ncclGroupEnd();
      throw;
    }
    nccl_check(ncclGroupEnd(), "ncclGroupEnd (the exchange between GPUs)");
    shards_.synchronize_all();
  }

 private:
  const ShardSet& shards_;
  std::vector<ncclComm_t> comms_;
};

}  // namespace metawarp::tables::distributed
