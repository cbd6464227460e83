#pragma once
// Sizes before data: rows[s][d], what shard s will send to shard d, is known
// to shard s only; every shard sends its row through the exchange (what
// separate processes must do) and reads its column back, so each receiver
// sizes its buffers from what arrived. The S words per shard each way live on
// the shards' devices and in page-locked host memory, allocated once with the
// table: a sizes exchange then costs the small transfers only, where the
// allocation and freeing of its buffers on every call (cudaFree waits for
// the whole device) and the copies through pageable memory cost more.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/cuda/pinned_buffer.hpp"
#include "metawarp/tables/distributed/exchange.cuh"
#include "metawarp/tables/distributed/shard_set.cuh"
#include "metawarp/tables/distributed/transfer.hpp"

namespace metawarp::tables::distributed {

using SizeMatrix = std::vector<std::vector<std::uint64_t>>;  // [from][to]

class SizeExchange {
 public:
  // `shards` must outlive this.
  explicit SizeExchange(const ShardSet& shards)
      : shards_(shards), send_(shards.size()), recv_(shards.size()),
        host_(2 * std::size_t(shards.size()) * shards.size()) {
    const unsigned S = shards.size();
    for (unsigned s = 0; s < S; ++s) {
      DeviceGuard on(shards.device(s));
      send_[s] = cuda::device_buffer<std::uint64_t>(S);
      recv_[s] = cuda::device_buffer<std::uint64_t>(S);
      for (unsigned d = 0; d < S; ++d) unit_.push_back(Transfer{s, d, d, s, 1});
    }
  }
  ~SizeExchange() {
    for (unsigned s = 0; s < send_.size(); ++s) {
      try {
        DeviceGuard on(shards_.device(s));
        send_[s] = {};
        recv_[s] = {};
      } catch (...) {
      }
    }
  }
  SizeExchange(const SizeExchange&) = delete;
  SizeExchange& operator=(const SizeExchange&) = delete;

  // The full matrix, as the receivers learn it (one host wait, for all shards).
  SizeMatrix run(Exchange& exchange, const SizeMatrix& rows) {
    const unsigned S = shards_.size();
    std::uint64_t* sent = host_.data();
    std::uint64_t* received = host_.data() + std::size_t(S) * S;
    std::vector<const std::uint64_t*> send(S);
    std::vector<std::uint64_t*> recv(S);
    for (unsigned s = 0; s < S; ++s) {
      DeviceGuard on(shards_.device(s));
      std::copy(rows[s].begin(), rows[s].end(), sent + std::size_t(s) * S);
      send_[s].copy_from_host(sent + std::size_t(s) * S, S, shards_.stream(s));
      send[s] = send_[s].data();
      recv[s] = recv_[s].data();
    }
    exchange.run_typed<std::uint64_t>(unit_, send, recv);  // returns with every shard idle
    for (unsigned d = 0; d < S; ++d) {
      DeviceGuard on(shards_.device(d));
      recv_[d].copy_to_host(received + std::size_t(d) * S, S, shards_.stream(d));
    }
    shards_.synchronize_streams();  // not the table streams: an insert's own segment goes on
    SizeMatrix matrix(S, std::vector<std::uint64_t>(S, 0));
    for (unsigned d = 0; d < S; ++d) {
      for (unsigned s = 0; s < S; ++s) matrix[s][d] = received[std::size_t(d) * S + s];
    }
    return matrix;
  }

 private:
  const ShardSet& shards_;
  std::vector<Transfer> unit_;  // one word from every shard to every shard
  std::vector<cuda::device_buffer<std::uint64_t>> send_, recv_;  // S words on each shard
  cuda::pinned_buffer<std::uint64_t> host_;  // rows sent, then columns received
};

}  // namespace metawarp::tables::distributed
