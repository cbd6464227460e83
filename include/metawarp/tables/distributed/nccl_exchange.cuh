#pragma once
// The exchange between distinct GPUs through NCCL point-to-point calls: one
// communicator per shard (rank = shard number) made by ncclCommInitAll in
// this process; every transfer of a run is one ncclSend on the sender's
// communicator and stream and one ncclRecv on the receiver's, all inside one
// ncclGroupStart/End so the pairs progress together (no ordering deadlock).
// A shard's transfer to itself is a device copy beside the group's kernels
// (exchange.cuh). The constructor
// connects every pair of ranks (see connect_every_pair). Included by
// make_exchange.cuh only when CMake found NCCL (METAWARP_HAVE_NCCL).
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "metawarp/cuda/device_buffer.hpp"
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
  explicit NcclExchange(const ShardSet& shards) : Exchange(shards), comms_(shards.size()) {
    nccl_check(ncclCommInitAll(comms_.data(), int(shards.size()), shards.devices().data()),
               "creating the NCCL communicators (ncclCommInitAll)");
    try {
      connect_every_pair();
    } catch (...) {
      destroy_comms();  // the destructor does not run for a throwing constructor
      throw;
    }
  }
  ~NcclExchange() override { destroy_comms(); }
  NcclExchange(const NcclExchange&) = delete;
  NcclExchange& operator=(const NcclExchange&) = delete;

  const char* name() const override { return "nccl"; }

  // The kernels go on the shards' streams at ncclGroupEnd; each shard's
  // segment to itself is copied beside them (it used to be a copy on the
  // same stream before the group's kernel, which waited for it: issue 28).
  void enqueue(const std::vector<Transfer>& transfers, std::size_t elem_bytes,
               const std::vector<const void*>& send, const std::vector<void*>& recv) override {
    const std::vector<bool> own = fork_own_segments(transfers);
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    try {
      for (const Transfer& t : transfers) {
        if (t.count == 0 || t.from == t.to) continue;  // both sides know the count: both skip
        const std::size_t bytes = t.count * elem_bytes;
        nccl_check(ncclSend(source(t, elem_bytes, send), bytes, ncclChar, int(t.to),
                            comms_[t.from], shards_.stream(t.from)),
                   "ncclSend");
        nccl_check(ncclRecv(destination(t, elem_bytes, recv), bytes, ncclChar, int(t.from),
                            comms_[t.to], shards_.stream(t.to)),
                   "ncclRecv");
      }
    } catch (...) {
      ncclGroupEnd();
      throw;
    }
    nccl_check(ncclGroupEnd(), "ncclGroupEnd (the exchange between GPUs)");
    copy_own_segments(transfers, elem_bytes, send, recv, own);
  }

 private:
  // NCCL connects two ranks lazily, on the first send/receive between them,
  // and that setup (its buffers and proxy state for every channel of the
  // pair, whatever the message size) costs far more than moving gigabytes
  // over NVLink: the first insert after construction paid it inside its
  // timed exchange (issue 28: 67 ms on 2 H100s, 216 ms on 4, against 8.6 and
  // 20 ms for the retrieval right after it). One byte each way between every
  // ordered pair, in one group, makes the construction pay it instead, so an
  // application's first exchange (a 2-GPU build) runs at link speed too.
  void connect_every_pair() {
    const unsigned S = shards_.size();
    std::vector<cuda::device_buffer<unsigned char>> send(S), recv(S);
    std::vector<const void*> send_at(S);
    std::vector<void*> recv_at(S);
    std::vector<Transfer> every_pair;
    for (unsigned s = 0; s < S; ++s) {
      DeviceGuard on(shards_.device(s));
      send[s] = cuda::device_buffer<unsigned char>(1);
      recv[s] = cuda::device_buffer<unsigned char>(S);
      send[s].fill_bytes(0, shards_.stream(s));
      send_at[s] = send[s].data();
      recv_at[s] = recv[s].data();
      for (unsigned d = 0; d < S; ++d) {
        if (d != s) every_pair.push_back(Transfer{s, d, 0, s, 1});
      }
    }
    run(every_pair, 1, send_at, recv_at);
  }

  void destroy_comms() {
    for (ncclComm_t comm : comms_) {
      if (comm != nullptr) ncclCommDestroy(comm);
    }
  }

  std::vector<ncclComm_t> comms_;
};

}  // namespace metawarp::tables::distributed
