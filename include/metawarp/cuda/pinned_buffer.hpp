#pragma once
// Owning, move-only page-locked host array (owning_buffer over
// pinned_host_memory): the fast path for asynchronous host<->device copies.
#include <cstddef>

#include "metawarp/cuda/owning_buffer.hpp"

namespace metawarp::cuda {

template <class T>
class pinned_buffer : public owning_buffer<T, pinned_host_memory> {
 public:
  using owning_buffer<T, pinned_host_memory>::owning_buffer;

  T& operator[](std::size_t i) const noexcept { return this->data()[i]; }
  T* begin() const noexcept { return this->data(); }
  T* end() const noexcept { return this->data() + this->size(); }
};

}  // namespace metawarp::cuda
