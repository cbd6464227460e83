#include "io/cut/background_read.hpp"

#include <stdexcept>

namespace metawarp::io {

BackgroundRead::BackgroundRead(ByteSource& source) : source_(source) {
  // A failure of the thread itself (not of a read: that is a result) wakes
  // a collect() waiting for it, which then rethrows it.
  thread_.on_stop([this] {
    requests_.cancel();
    results_.cancel();
  });
  thread_.spawn([this] { serve(); });
}

BackgroundRead::~BackgroundRead() {
  // The channels are cancelled; a read in flight still ends (writing into
  // memory its caller holds until this returns) before the thread is joined.
  thread_.stop();
}

void BackgroundRead::start(char* destination, std::size_t capacity) {
  if (in_flight_) throw std::logic_error("BackgroundRead::start: a read is in flight");
  // With room for one request, the push never waits; false only once the
  // thread has failed, which collect() then reports.
  requests_.push(Request{destination, capacity});
  in_flight_ = true;
}

std::size_t BackgroundRead::collect() {
  if (!in_flight_) throw std::logic_error("BackgroundRead::collect: no read in flight");
  in_flight_ = false;
  Result result;
  if (!results_.pop(result)) {
    thread_.join();  // rethrows what stopped the thread
    throw std::runtime_error("the thread reading ahead stopped");
  }
  if (result.error) std::rethrow_exception(result.error);
  return result.bytes;
}

void BackgroundRead::serve() {
  Request request;
  while (requests_.pop(request)) {
    Result result;
    try {
      result.bytes = source_.read(request.destination, request.capacity);
    } catch (...) {
      result.error = std::current_exception();
    }
    if (!results_.push(std::move(result))) return;
  }
}

}  // namespace metawarp::io
