#pragma once
// One read of a ByteSource at a time on a thread of its own, started by one
// call and collected by another: the cutter reads its next block's bytes
// this way while it finds the records of the block it has
// (block_read_ahead.hpp).
//
// The read writes straight into the caller's memory (no copy after it), so
// that memory must outlive the read: until collect() or the destructor,
// which waits for a read in flight (a read cannot be interrupted; it is one
// read of tens of megabytes at most).
#include <cstddef>
#include <exception>

#include "io/decode/byte_source.hpp"
#include "metawarp/host/channel.hpp"
#include "metawarp/host/thread_group.hpp"

namespace metawarp::io {

class BackgroundRead {
 public:
  // Reads `source`, which the caller keeps alive and leaves alone while a
  // read is in flight (no read, no raw_bytes_read() of its own).
  explicit BackgroundRead(ByteSource& source);
  // Waits for a read in flight, then stops the thread.
  ~BackgroundRead();
  BackgroundRead(const BackgroundRead&) = delete;
  BackgroundRead& operator=(const BackgroundRead&) = delete;

  // Starts source.read(destination, capacity); none may be in flight.
  void start(char* destination, std::size_t capacity);
  // Waits for the read started last: what source.read() returned, or throws
  // what it threw (SourceError for a read error, as a read on this thread).
  std::size_t collect();
  bool in_flight() const { return in_flight_; }

 private:
  struct Request {
    char* destination = nullptr;
    std::size_t capacity = 0;
  };
  struct Result {
    std::size_t bytes = 0;
    std::exception_ptr error;
  };

  void serve();

  ByteSource& source_;
  // One each at most: one read in flight, its result not yet collected.
  host::Channel<Request> requests_{1};
  host::Channel<Result> results_{1};
  bool in_flight_ = false;
  host::ThreadGroup thread_;  // last: stopped and joined before the channels go
};

}  // namespace metawarp::io
