#pragma once
// A growable byte array that, unlike std::vector<char>, leaves the bytes it
// grows by uninitialised: record blocks are filled by read() right after they
// grow, and zeroing megabytes per batch first would cost as much as the read.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>

namespace metawarp::io {

// Storage for ByteBuffer. Buffers of megabytes (a batch's reads) are aligned
// to and advised onto transparent huge pages, where the system allows it:
// first touching them page by page would cost more than filling them.
struct ByteStorageDeleter {
  std::align_val_t alignment;
  void operator()(char* data) const { ::operator delete[](data, alignment); }
};
using ByteStorage = std::unique_ptr<char[], ByteStorageDeleter>;
ByteStorage allocate_bytes(std::size_t bytes);

class ByteBuffer {
 public:
  const char* data() const { return data_.get(); }
  char* data() { return data_.get(); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  std::string_view view() const { return {data_.get(), size_}; }

  void clear() { size_ = 0; }

  // Capacity for at least `bytes`, keeping the contents; grows at least 1.5x
  // so that appending piece by piece stays linear.
  void reserve(std::size_t bytes) {
    if (bytes <= capacity_) return;
    const std::size_t grown = std::max(bytes, capacity_ + capacity_ / 2);
    ByteStorage larger = allocate_bytes(grown);
    if (size_ > 0) std::memcpy(larger.get(), data_.get(), size_);
    data_ = std::move(larger);
    capacity_ = grown;
  }

  // New bytes (when growing) are uninitialised.
  void resize(std::size_t bytes) {
    reserve(bytes);
    size_ = bytes;
  }

  void append(const char* bytes, std::size_t count) {
    if (count == 0) return;
    reserve(size_ + count);
    std::memcpy(data_.get() + size_, bytes, count);
    size_ += count;
  }
  void append(std::string_view bytes) { append(bytes.data(), bytes.size()); }

 private:
  ByteStorage data_{nullptr, ByteStorageDeleter{std::align_val_t{alignof(std::max_align_t)}}};
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace metawarp::io
