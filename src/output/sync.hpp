#pragma once
// How durable AtomicFile::commit() makes a file (atomic_file.hpp); on its own
// so that the options that carry it (db::save, the build's) need no more.

namespace metawarp::output {

// How durable commit() makes a file (not a stream).
enum class Sync {
  // The file is fsynced before the rename and its folder after: once commit()
  // returns, even a power cut leaves the complete new file.
  always,
  // As `always` where the rename replaces a file (the old one stays intact
  // until the new one is complete and durable); where nothing is replaced the
  // file is renamed into place unsynced and the kernel writes it back in its
  // own time: a power cut (not a crash of the process) before that may leave
  // it incomplete under its name. For files that are checked when read (a
  // database's checksums), where that is found, never used.
  when_replacing,
};

}  // namespace metawarp::output
