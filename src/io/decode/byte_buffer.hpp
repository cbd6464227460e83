#pragma once
// A growable byte array that, unlike std::vector<char>, leaves the bytes it
// grows by uninitialised: record blocks are filled by read() right after they
// grow, and zeroing megabytes per batch first would cost as much as the read.
// Its contents may start after room left in front of them, so that bytes
// read before the ones that go in front are known (the cutter reading ahead,
// io/cut/block_read_ahead.hpp) need not be moved to put them there.
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
  const char* data() const { return data_.get() + begin_; }
  char* data() { return data_.get() + begin_; }
  std::size_t size() const { return size_; }
  // From data() on.
  std::size_t capacity() const { return capacity_ - begin_; }
  bool empty() const { return size_ == 0; }
  std::string_view view() const { return {data(), size_}; }

  void clear() {
    size_ = 0;
    begin_ = 0;
  }

  // Capacity for at least `bytes`, keeping the contents; grows at least 1.5x
  // so that appending piece by piece stays linear.
  void reserve(std::size_t bytes) {
    if (bytes <= capacity_ - begin_) return;
    const std::size_t grown = std::max(bytes, capacity_ + capacity_ / 2);
    ByteStorage larger = allocate_bytes(grown);
    if (size_ > 0) std::memcpy(larger.get(), data(), size_);
    data_ = std::move(larger);
    capacity_ = grown;
    begin_ = 0;
  }

  // Empties the buffer, its contents to start `room` bytes in (prepend()
  // fills that room without moving them), with capacity() for `bytes`.
  void clear_with_front_room(std::size_t room, std::size_t bytes) {
    clear();
    reserve(room + bytes);
    begin_ = room;
  }
  std::size_t front_room() const { return begin_; }

  // Puts `count` bytes before the contents (not from this buffer): into the
  // front room where they fit, else the contents move.
  void prepend(const char* bytes, std::size_t count) {
    if (count == 0) return;
    if (count > begin_) {
      const std::size_t total = std::max(count + size_, capacity_);
      ByteStorage larger = allocate_bytes(total);
      if (size_ > 0) std::memcpy(larger.get() + count, data(), size_);
      data_ = std::move(larger);
      capacity_ = total;
      begin_ = count;
    }
    begin_ -= count;
    size_ += count;
    std::memcpy(data(), bytes, count);
  }

  // Drops the first `count` bytes (at most size()); they become front room.
  void drop_front(std::size_t count) {
    begin_ += count;
    size_ -= count;
  }

  // New bytes (when growing) are uninitialised.
  void resize(std::size_t bytes) {
    reserve(bytes);
    size_ = bytes;
  }

  void append(const char* bytes, std::size_t count) {
    if (count == 0) return;
    reserve(size_ + count);
    std::memcpy(data() + size_, bytes, count);
    size_ += count;
  }
  void append(std::string_view bytes) { append(bytes.data(), bytes.size()); }

 private:
  ByteStorage data_{nullptr, ByteStorageDeleter{std::align_val_t{alignof(std::max_align_t)}}};
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;  // of the storage, front room included
  std::size_t begin_ = 0;     // where the contents start: the front room
};

}  // namespace metawarp::io
