#include "output/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

// This process's temporary for `target`, after the stale ones were removed
// (before the new one is registered, so that a leftover with this pid goes).
std::filesystem::path fresh_temporary_path(const std::filesystem::path& target) {
  remove_stale_temporaries(target);
  return temporary_path(target, ::getpid());
}

}  // namespace

AtomicFile::AtomicFile(const std::string& path, OnFailure on_failure, std::string noun)
    : path_(path),
      noun_(std::move(noun)),
      target_(resolve_output(path, noun_)),
      temporary_(fresh_temporary_path(target_.path)),
      remove_temporary_(temporary_) {
  buffer_.resize(buffer_bytes);
  file_ = FileDescriptor(::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                                target_.exists ? replacement_start_mode : new_file_mode));
  if (!file_.is_open()) {
    const int error = errno;
    remove_temporary_.keep();  // not ours: this process is writing the same target already
    fail("cannot create the temporary file '" + temporary_.string() + "'", error);
  }
  // Only now: a path that cannot even be created leaves the old file alone.
  if (on_failure == OnFailure::remove_existing) remove_existing_.emplace(target_.path);
}

// The members clean up: file_ closes, remove_temporary_ and remove_existing_
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

void AtomicFile::write_at(std::uint64_t offset, const void* data, std::size_t bytes) const {
  if (!file_.is_open()) fail("write after commit", 0);
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
  if (!target_.exists) return;
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

void AtomicFile::commit() {
  if (!file_.is_open()) fail("committed twice", 0);
  flush_buffer();
  copy_owner_and_mode();
  if (::fsync(file_.get()) != 0) fail("write failed (fsync)", errno);
  if (const int error = file_.close()) fail("write failed (close)", error);
  if (::rename(temporary_.c_str(), target_.path.c_str()) != 0)
    fail("renaming '" + temporary_.string() + "' failed", errno);
  remove_temporary_.keep();
  if (remove_existing_) remove_existing_->keep();
  sync_folder();
}

}  // namespace metawarp::output
