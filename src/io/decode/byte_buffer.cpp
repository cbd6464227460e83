#include "io/decode/byte_buffer.hpp"

#include "metawarp/host/huge_pages.hpp"

namespace metawarp::io {

ByteStorage allocate_bytes(std::size_t bytes) {
  constexpr std::size_t huge_page = host::huge_page_bytes;
  const bool huge = bytes >= 2 * huge_page;
  const std::align_val_t alignment{huge ? huge_page : alignof(std::max_align_t)};
  if (huge) bytes = (bytes + huge_page - 1) / huge_page * huge_page;
  ByteStorage storage(static_cast<char*>(::operator new[](bytes, alignment)), ByteStorageDeleter{alignment});
  if (huge) host::advise_huge_pages(storage.get(), bytes);
  return storage;
}

}  // namespace metawarp::io
