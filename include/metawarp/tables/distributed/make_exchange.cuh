#pragma once
// Choosing the exchange for a device list (see exchange.cuh).
#include <memory>
#include <stdexcept>

#include "metawarp/tables/distributed/exchange.cuh"
#include "metawarp/tables/distributed/shard_set.cuh"
#if defined(METAWARP_HAVE_NCCL)
#include "metawarp/tables/distributed/nccl_exchange.cuh"
#endif

namespace metawarp::tables::distributed {

enum class ExchangeKind {
  automatic,   // local copies on one GPU; NCCL for one shard per GPU (error without NCCL)
  local_copy,  // cudaMemcpyPeerAsync, any device list
  nccl,        // ncclSend/ncclRecv; needs NCCL and one shard per GPU
};

inline bool nccl_available() {
#if defined(METAWARP_HAVE_NCCL)
  return true;
#else
  return false;
#endif
}

// The exchange for `shards` (which must outlive it), or std::invalid_argument
// saying what to change.
inline std::unique_ptr<Exchange> make_exchange(const ShardSet& shards, ExchangeKind kind) {
  const bool one_gpu = shards.single_device();
  if (kind == ExchangeKind::automatic) {
    if (one_gpu) return std::make_unique<LocalCopyExchange>(shards);
    if (!nccl_available()) {
      throw std::invalid_argument(
          "shards on several GPUs need NCCL, and this build has none (configure with nccl.h "
          "and libnccl present), or ask for ExchangeKind::local_copy to use peer copies");
    }
    if (!shards.distinct_devices()) return std::make_unique<LocalCopyExchange>(shards);
    kind = ExchangeKind::nccl;
  }
  if (kind == ExchangeKind::local_copy) return std::make_unique<LocalCopyExchange>(shards);
#if defined(METAWARP_HAVE_NCCL)
  if (!shards.distinct_devices()) {
    throw std::invalid_argument(
        "the NCCL exchange needs one shard per GPU (NCCL ranks cannot share a device); "
        "use ExchangeKind::local_copy for several shards per GPU");
  }
  return std::make_unique<NcclExchange>(shards);
#else
  throw std::invalid_argument(
      "the NCCL exchange was asked for, but this build has no NCCL (nccl.h and libnccl were not "
      "found at configure time)");
#endif
}

}  // namespace metawarp::tables::distributed
