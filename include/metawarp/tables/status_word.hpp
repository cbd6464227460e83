#pragma once
// A table's accumulated status on the device: one word the device code ORs
// every operation's errors and warnings into, read and cleared from the host.
// Every table that keeps a status (TableCore, the bucketed tables) owns one.
#include <cuda_runtime_api.h>

#include "metawarp/cuda/device_buffer.hpp"
#include "metawarp/cuda/error.hpp"
#include "metawarp/tables/status.hpp"

namespace metawarp::tables {

class StatusWord {
 public:
  StatusWord() : bits_(1) {}

  // Where device code records (atomicOr) the status.
  Status::bits_type* data() const { return bits_.data(); }
  void clear(cudaStream_t stream) { bits_.fill_bytes(0, stream); }
  // Status accumulated since construction / the last pop (synchronises `stream`).
  Status peek(cudaStream_t stream) const {
    Status::bits_type bits = 0;
    bits_.copy_to_host(&bits, 1, stream);
    cuda::check(cudaStreamSynchronize(stream), "reading the table status");
    return Status(bits);
  }
  Status pop(cudaStream_t stream) {
    const Status s = peek(stream);
    clear(stream);
    return s;
  }

 private:
  cuda::device_buffer<Status::bits_type> bits_;
};

}  // namespace metawarp::tables
