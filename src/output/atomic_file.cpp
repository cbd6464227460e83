#include "output/atomic_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "output/stale_temporaries.hpp"
#include "output/write_error.hpp"

namespace metawarp::output {
namespace {

// Small writes are gathered; larger ones go straight to the file.
constexpr std::size_t buffer_bytes = std::size_t(1) << 20;

// A new file's mode before the umask, as fopen and the shell create files.
constexpr mode_t new_file_mode = 0666;
// A replacement starts private and gets the old file's bits at commit, so
// the content is never readable by more users than the old file allowed.
constexpr mode_t replacement_start_mode = 0600;

}  // namespace

AtomicFile::AtomicFile(const std::string& path, OnFailure on_failure, std::string noun,
                       Writes writes)
    : path_(path), noun_(std::move(noun)), target_(resolve_output(path, noun_, writes)) {
  buffer_.resize(buffer_bytes);
  if (target_.renamed())
    create_temporary(on_failure);
  else
    open_stream();
}

void AtomicFile::create_temporary(OnFailure on_failure) {
  // The stale temporaries go first, before the new one is registered, so
  // that a leftover with this process's pid goes too.
  remove_stale_temporaries(target_.path);
  temporary_ = temporary_path(target_.path, ::getpid());
  remove_temporary_.emplace(temporary_);
  const bool replacing = target_.kind == TargetKind::regular_file;
  // Read and write: a shared mapping (reserve()) needs both.
  file_ = FileDescriptor(::open(temporary_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
                                replacing ? replacement_start_mode : new_file_mode));
  if (!file_.is_open()) {
    const int error = errno;
    remove_temporary_->keep();  // not ours: this process is writing the same target already
    fail("cannot create the temporary file '" + temporary_.string() + "'", error);
  }
  // Only now: a path that cannot even be created leaves the old file alone.
  if (on_failure == OnFailure::remove_existing) remove_existing_.emplace(target_.path);
}

void AtomicFile::open_stream() {
  if (target_.kind == TargetKind::descriptor) {
    // A duplicate shares the descriptor's file offset and O_APPEND; closing
    // it leaves the process's own descriptor open.
    file_ = FileDescriptor(::fcntl(target_.descriptor, F_DUPFD_CLOEXEC, 0));
    if (!file_.is_open())
      fail("cannot use descriptor " + std::to_string(target_.descriptor), errno);
    return;
  }
  // O_NOFOLLOW: the path has no links in it (output_path.hpp); one put there
  // since is not followed. No O_CREAT, no O_TRUNC: it is written, not made.
  file_ = FileDescriptor(
      ::open(target_.path.c_str(), O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC));
  if (!file_.is_open()) fail("cannot open it for writing", errno);
  struct stat st {};
  if (::fstat(file_.get(), &st) != 0 || st.st_dev != target_.device ||
      st.st_ino != target_.inode)
    fail("it changed while it was being opened", 0);
}

// The members clean up: mapping_ unmaps, file_ closes, remove_temporary_ and remove_existing_
// unlink what was not committed.
AtomicFile::~AtomicFile() = default;

void AtomicFile::fail(std::string_view what, int error) const {
  std::string problem(what);
  if (error != 0) problem.append(": ").append(std::strerror(error));
  throw write_error(noun_, path_, problem);
}

void AtomicFile::write_through(const char* data, std::size_t bytes) {
  while (bytes > 0) {
    const ssize_t written = ::write(file_.get(), data, bytes);
    if (written < 0) {
      if (errno == EINTR) continue;
      fail("write failed", errno);
    }
    data += written;
    bytes -= std::size_t(written);
  }
}

void AtomicFile::flush_buffer() {
  write_through(buffer_.data(), buffered_);
  buffered_ = 0;
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  if (!file_.is_open()) fail("write after commit", 0);
  if (bytes == 0) return;  // data may be null then (an empty vector's data())
  const char* bytes_in = static_cast<const char*>(data);
  if (buffered_ + bytes > buffer_.size()) flush_buffer();
  if (bytes >= buffer_.size()) return write_through(bytes_in, bytes);
  std::memcpy(buffer_.data() + buffered_, bytes_in, bytes);
  buffered_ += bytes;
}

AtomicFile::Mapping& AtomicFile::Mapping::operator=(Mapping&& other) noexcept {
  if (this != &other) {
    unmap();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

int AtomicFile::Mapping::unmap() noexcept {
  if (data_ == nullptr) return 0;
  const int result = ::munmap(data_, bytes_);
  data_ = nullptr;
  bytes_ = 0;
  return result == 0 ? 0 : errno;
}

void AtomicFile::reserve(std::uint64_t bytes) {
  if (!file_.is_open()) fail("reserve after commit", 0);
  if (!target_.renamed() || bytes == 0 || mapping_.data() != nullptr) return;
  int result = 0;
  do result = ::fallocate(file_.get(), 0, 0, off_t(bytes));
  while (result != 0 && errno == EINTR);
  if (result != 0) {
    const int error = errno;
    // No room: said now, before anything is written. A file system without
    // fallocate() (or refusing it otherwise) is written with pwrite().
    if (error == ENOSPC || error == EDQUOT || error == EFBIG)
      fail("no room for its " + std::to_string(bytes) + " bytes", error);
    return;
  }
  // The blocks are the file's now, so writing through the mapping allocates
  // nothing on disk; a mapping refused leaves pwrite().
  void* data = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, file_.get(), 0);
  if (data == MAP_FAILED) return;
  mapping_ = Mapping(static_cast<char*>(data), bytes);
}

void AtomicFile::write_at(std::uint64_t offset, const void* data, std::size_t bytes) const {
  if (!file_.is_open()) fail("write after commit", 0);
  if (mapping_.data() != nullptr && offset <= mapping_.bytes() &&
      bytes <= mapping_.bytes() - offset) {
    if (bytes > 0) std::memcpy(mapping_.data() + offset, data, bytes);
    return;
  }
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t written = ::pwrite(file_.get(), p, bytes, off_t(offset));
    if (written < 0) {
      if (errno == EINTR) continue;
      fail("write failed", errno);
    }
    if (written == 0) fail("write failed (no progress)", 0);
    p += written;
    bytes -= std::size_t(written);
    offset += std::uint64_t(written);
  }
}

void AtomicFile::copy_owner_and_mode() {
  if (target_.kind != TargetKind::regular_file) return;
  struct stat st {};
  if (::fstat(file_.get(), &st) != 0) fail("stat of the temporary file failed", errno);
  // Owner first: changing it may clear set-user-id bits that fchmod then sets.
  // Only a privileged process may give a file away; otherwise the owner
  // becomes this process's user, as with any program that replaces files.
  if (st.st_uid != target_.owner || st.st_gid != target_.group)
    (void)::fchown(file_.get(), target_.owner, target_.group);
  if (::fchmod(file_.get(), target_.mode) != 0) fail("setting the permission bits failed", errno);
}

void AtomicFile::sync_folder() {
  FileDescriptor folder(
      ::open(target_.path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!folder.is_open()) fail("cannot open its folder to sync the rename", errno);
  // EINVAL: this file system cannot sync a folder; there is nothing more to do.
  if (::fsync(folder.get()) != 0 && errno != EINVAL)
    fail("syncing its folder after the rename failed", errno);
}

void AtomicFile::commit(Sync sync) {
  if (!file_.is_open()) fail("committed twice", 0);
  flush_buffer();
  // The mapping's pages are the file's: fsync() below writes them as well.
  if (const int error = mapping_.unmap()) fail("write failed (munmap)", error);
  if (!target_.renamed()) {
    if (const int error = file_.close()) fail("write failed (close)", error);
    return;
  }
  copy_owner_and_mode();
  // Whatever is at the path now (also a file made there since the start) is
  // replaced: it stays intact until the new file is durable.
  struct stat existing {};
  const bool durable = sync == Sync::always || ::lstat(target_.path.c_str(), &existing) == 0;
  if (durable && ::fsync(file_.get()) != 0) fail("write failed (fsync)", errno);
  if (const int error = file_.close()) fail("write failed (close)", error);
  if (::rename(temporary_.c_str(), target_.path.c_str()) != 0)
    fail("renaming '" + temporary_.string() + "' failed", errno);
  remove_temporary_->keep();
  if (remove_existing_) remove_existing_->keep();
  if (durable) sync_folder();
}

}  // namespace metawarp::output
