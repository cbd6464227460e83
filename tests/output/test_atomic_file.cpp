// AtomicFile: complete or nothing, the replaced file's mode and owner kept,
// the temporary removed on every failure, and the two policies for the file
// that was there before.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "output/atomic_file.hpp"
#include "output_test_support.hpp"

using namespace metawarp;
using namespace metawarp::test;
using output::AtomicFile;
using output::OnFailure;

TEST_CASE("atomic file: the content appears only on commit, in one piece") {
  ScratchDir dir("commit");
  const std::string path = dir / "out.tsv";
  const std::string big(3 << 20, 'x');  // larger than the buffer: written through
  {
    AtomicFile file(path, OnFailure::remove_existing);
    file.write("head\n");
    file.write(nullptr, 0);  // an empty section: no bytes, maybe no data pointer
    file.write(big);
    file.write("tail\n");
    CHECK_FALSE(std::filesystem::exists(path));
    CHECK(std::filesystem::exists(file.temporary()));
    CHECK(file.temporary().filename() == "out.tsv.tmp-" + std::to_string(::getpid()));
    file.commit();
    CHECK_THROWS(file.write("more"));
  }
  CHECK(read_text(path) == "head\n" + big + "tail\n");
  CHECK(temporaries_in(dir.path()).empty());
}

TEST_CASE("atomic file: a new file gets 0666 & ~umask, a replaced one keeps its mode") {
  ScratchDir dir("mode");
  const mode_t old_umask = ::umask(027);
  {
    AtomicFile file(dir / "new", OnFailure::keep_existing);
    file.commit();
  }
  ::umask(old_umask);
  CHECK((lstat_of(dir / "new").st_mode & 07777) == 0640);

  write_text(dir / "old", "old");
  ::chmod((dir / "old").c_str(), 0604);
  {
    AtomicFile file(dir / "old", OnFailure::keep_existing);
    // Until commit the content is private, whatever the old mode allowed.
    CHECK((lstat_of(file.temporary()).st_mode & 07777) == 0600);
    file.write("new");
    file.commit();
  }
  CHECK((lstat_of(dir / "old").st_mode & 07777) == 0604);
  CHECK(read_text(dir / "old") == "new");
}

TEST_CASE("atomic file: a replaced file keeps its owner and group where the process may set them") {
  if (!running_as_root("the owner cannot be given away, nothing to check")) return;
  ScratchDir dir("owner");
  write_text(dir / "db", "old");
  REQUIRE(::chown((dir / "db").c_str(), 1234, 2345) == 0);
  {
    AtomicFile file(dir / "db", OnFailure::keep_existing, "database");
    file.write("new");
    file.commit();
  }
  const struct stat st = lstat_of(dir / "db");
  CHECK(st.st_uid == 1234u);
  CHECK(st.st_gid == 2345u);
}

TEST_CASE("atomic file: an exception before commit removes the temporary; the policies differ") {
  ScratchDir dir("failure");
  const std::string db = dir / "db.mwdb", tsv = dir / "out.tsv";
  write_text(db, "working database");
  write_text(tsv, "old results");
  try {
    AtomicFile database(db, OnFailure::keep_existing, "database");
    AtomicFile results(tsv, OnFailure::remove_existing);
    database.write("half a datab");
    results.write("half the res");
    REQUIRE(temporaries_in(dir.path()).size() == 2);
    throw std::runtime_error("the build failed");
  } catch (const std::runtime_error&) {
  }
  CHECK(temporaries_in(dir.path()).empty());
  CHECK(read_text(db) == "working database");  // a failed rebuild keeps the database
  CHECK_FALSE(std::filesystem::exists(tsv));   // no stale result that looks current
}

TEST_CASE("atomic file: a failed commit removes the temporary and keeps what is there") {
  ScratchDir dir("failed_commit");
  const std::string path = dir / "db.mwdb";
  {
    AtomicFile file(path, OnFailure::keep_existing, "database");
    file.write("content");
    // Something else takes the path meanwhile: a non-empty folder, which the
    // rename cannot replace.
    std::filesystem::create_directories(dir / "db.mwdb/inside");
    const std::string message = error_of([&] { file.commit(); });
    CHECK(contains(message, "cannot write database '" + path + "'"));
    CHECK(contains(message, "renaming"));
  }
  CHECK(std::filesystem::is_directory(dir / "db.mwdb/inside"));
  CHECK(temporaries_in(dir.path()).empty());
}

TEST_CASE("atomic file: a refused path removes nothing, whatever the policy") {
  ScratchDir dir("refused");
  const std::string path = dir / "out.tsv";
  write_text(path, "old results");
  REQUIRE(::link(path.c_str(), (dir / "other_name").c_str()) == 0);
  CHECK_THROWS(AtomicFile(path, OnFailure::remove_existing));
  CHECK(read_text(path) == "old results");
  CHECK(temporaries_in(dir.path()).empty());
}

TEST_CASE("atomic file: writes at offsets from several threads, reserved (mapped) or not") {
  ScratchDir dir("at_offsets");
  // Chunks of distinct bytes, written out of order by 4 threads at once.
  constexpr std::size_t chunk = 300000, chunks = 16;
  std::string expected(chunk * chunks, '\0');
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = char('a' + (i * 7 + i / chunk) % 26);
  for (const bool reserved : {true, false}) {
    const std::string path = dir / (reserved ? "reserved.mwdb" : "plain.mwdb");
    {
      AtomicFile file(path, OnFailure::keep_existing, "database", output::Writes::at_offsets);
      if (reserved) file.reserve(expected.size());
      std::vector<std::thread> threads;
      for (unsigned t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
          for (std::size_t c = chunks - 1 - t; c < chunks; c -= 4) {
            file.write_at(c * chunk, expected.data() + c * chunk, chunk);
            if (c < 4) break;
          }
        });
      for (auto& thread : threads) thread.join();
      CHECK_FALSE(std::filesystem::exists(path));
      file.commit(output::Sync::when_replacing);
    }
    INFO(path);
    CHECK(std::filesystem::file_size(path) == expected.size());
    CHECK(read_text(path) == expected);
  }
  CHECK(temporaries_in(dir.path()).empty());
}

TEST_CASE("atomic file: a file over the size limit fails before commit, naming it, leaving nothing") {
  ScratchDir dir("no_room");
  const std::string path = dir / "db.mwdb";
  write_text(path, "working database");
  struct rlimit old_limit {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  struct sigaction ignore {}, old_action {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  REQUIRE(::sigaction(SIGXFSZ, &ignore, &old_action) == 0);
  struct rlimit limit = old_limit;
  limit.rlim_cur = 1 << 20;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &limit) == 0);
  std::string message;
  {
    AtomicFile file(path, OnFailure::keep_existing, "database", output::Writes::at_offsets);
    // reserve() says so where the file system reserves room; else the write does.
    message = error_of([&] {
      file.reserve(std::uint64_t(4) << 20);
      const std::string bytes(std::size_t(4) << 20, 'x');
      file.write_at(0, bytes.data(), bytes.size());
      file.commit();
    });
  }
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  ::sigaction(SIGXFSZ, &old_action, nullptr);
  CHECK(contains(message, "cannot write database '" + path + "'"));
  CHECK((contains(message, "no room for its 4194304 bytes") || contains(message, "write failed")));
  CHECK(read_text(path) == "working database");
  CHECK(temporaries_in(dir.path()).empty());
}
