#pragma once
// An output: a file written completely or not at all, or a stream written
// directly. Every output metawarp writes goes through it.
//
// A file (a new path or a regular file, output_path.hpp): the content goes to
// `<target>.tmp-<pid>` next to the target (the path after following symbolic
// links); commit() flushes it, fsyncs it, gives it the replaced file's
// permission bits (and owner and group, where the process may set them; a new
// file gets 0666 & ~umask), renames it over the target and fsyncs the
// folder, so that even a power cut leaves either the old file or the
// complete new one. Until commit() succeeds the temporary is removed by the
// destructor and by an interrupt (signals.hpp).
//
// A character device or a FIFO is opened for writing (no O_CREAT, no
// O_TRUNC, O_NOFOLLOW: the checked path is the one opened; a FIFO waits for
// its reader), a descriptor (/dev/stdout, /dev/fd/N) duplicated; commit()
// flushes and closes. No temporary, no rename, nothing removed on failure:
// what was written cannot be taken back (the exit status tells).
//
// Every write, the flush, the sync and the close are checked.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "output/file_descriptor.hpp"
#include "output/output_path.hpp"
#include "output/remove_on_failure.hpp"
#include "output/sync.hpp"

namespace metawarp::output {

// What a failed (uncommitted) write does to the file already at the target.
enum class OnFailure {
  // It stays: a failed rebuild must not destroy a working database.
  keep_existing,
  // It is removed too, once the temporary was created (and on an interrupt):
  // a failed query must not leave an old output that looks current.
  remove_existing,
};

class AtomicFile {
 public:
  // Applies the output path rule (throws before creating anything); for a
  // file removes the stale temporaries of the same target and creates the
  // temporary, for a stream opens it. Errors are write_error(noun, path,
  // ...): noun "database" or empty. `writes`: Writes::at_offsets for an
  // output written with write_at().
  AtomicFile(const std::string& path, OnFailure on_failure, std::string noun = {},
             Writes writes = Writes::in_order);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t bytes);
  void write(std::string_view text) { write(text.data(), text.size()); }
  // Writes at `offset`, bypassing the buffer: for a file written in parts by
  // several threads at once, which may call it concurrently. Not to be mixed
  // with write().
  void write_at(std::uint64_t offset, const void* data, std::size_t bytes) const;
  // The file written with write_at() will be `bytes` long: its blocks are
  // reserved now (fallocate), so that a disk without room fails before
  // anything is written, and write_at() then copies into a shared mapping of
  // the file, which threads fill side by side (pwrite() of one file takes
  // its lock: threads took turns, about 3.5 GB/s on the device's hosts). A
  // file system without fallocate() is written with pwrite(). Once, before
  // the first write_at(); a stream is unaffected.
  void reserve(std::uint64_t bytes);
  // Makes the file the target, or ends a stream (see above). Throws when any
  // step fails; the temporary is then removed and, with keep_existing, the
  // old file kept.
  void commit(Sync sync = Sync::always);

  const OutputTarget& target() const { return target_; }
  // Empty for a stream.
  const std::filesystem::path& temporary() const { return temporary_; }

 private:
  [[noreturn]] void fail(std::string_view what, int error) const;
  void create_temporary(OnFailure on_failure);
  void open_stream();
  void write_through(const char* data, std::size_t bytes);
  void flush_buffer();
  void copy_owner_and_mode();
  void sync_folder();

  std::string path_;  // as given, for messages
  std::string noun_;
  OutputTarget target_;
  std::filesystem::path temporary_;
  std::optional<RemoveOnFailure> remove_temporary_;
  std::optional<RemoveOnFailure> remove_existing_;
  FileDescriptor file_;
  std::vector<char> buffer_;
  std::size_t buffered_ = 0;
  // reserve()'s mapping of the temporary; unmapped by commit() or the
  // destructor (before the temporary goes).
  class Mapping {
   public:
    Mapping() = default;
    Mapping(char* data, std::uint64_t bytes) : data_(data), bytes_(bytes) {}
    ~Mapping() { unmap(); }
    Mapping(const Mapping&) = delete;
    Mapping& operator=(Mapping&& other) noexcept;
    char* data() const { return data_; }
    std::uint64_t bytes() const { return bytes_; }
    int unmap() noexcept;  // 0 or errno

   private:
    char* data_ = nullptr;
    std::uint64_t bytes_ = 0;
  };
  Mapping mapping_;
};

}  // namespace metawarp::output
